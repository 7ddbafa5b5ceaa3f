import { readFileSync } from "node:fs";
import { diffLines } from "diff";
import { type DeploymentRecord, listRecords } from "../engine/history.js";
import type { Comparison, DeploymentView, PhaseTiming } from "./api-types.js";

/** Each phase lasts until the next one of the service (the last until the deployment ended). */
function timings(phases: readonly { phase: string; at: string }[], end: string | undefined): PhaseTiming[] {
  return phases.map((p, i) => {
    const next = phases[i + 1]?.at ?? end;
    return { ...p, ms: next ? Math.max(0, Date.parse(next) - Date.parse(p.at)) : null };
  });
}

export function toDeploymentView(r: DeploymentRecord): DeploymentView {
  return {
    id: r.id,
    kind: r.kind ?? "deploy",
    rollbackOf: r.rollbackOf,
    by: r.by ?? null,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt ?? null,
    durationMs: r.finishedAt ? Date.parse(r.finishedAt) - Date.parse(r.startedAt) : null,
    outcome: r.outcome,
    git: r.git ?? null,
    error: r.error ?? null,
    notes: r.notes ?? [],
    noChangeSince: r.noChangeSince ?? null,
    services: Object.entries(r.services).map(([name, s]) => ({
      name,
      phase: s.phase,
      phases: timings(s.phases, r.finishedAt),
      image: r.images?.[name]?.tag ?? null,
    })),
    migrations: Object.entries(r.migrations).map(([service, m]) => ({
      service,
      output: m.output,
      exitCode: m.exitCode ?? null,
      failed: m.failed ?? false,
    })),
  };
}

export function deploymentViews(project: string, env: string): DeploymentView[] {
  return listRecords(project, env).map(toDeploymentView);
}

const readCopy = (r: DeploymentRecord) => {
  try {
    return r.configCopy ? readFileSync(r.configCopy, "utf8") : "";
  } catch {
    return "";
  }
};

function changed(a: Record<string, string>, b: Record<string, string>) {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((k) => a[k] !== b[k])
    .map((service) => ({ service, from: a[service] ?? null, to: b[service] ?? null }));
}

/** What changed from one deployment to another: platform.yml, images, URLs, commit. */
export function compareDeployments(a: DeploymentRecord, b: DeploymentRecord): Comparison {
  const tags = (r: DeploymentRecord) => Object.fromEntries(Object.entries(r.images ?? {}).map(([k, v]) => [k, v.tag]));
  return {
    from: a.id,
    to: b.id,
    config: diffLines(readCopy(a), readCopy(b)).map((p) => ({ kind: p.added ? "added" : p.removed ? "removed" : "same", text: p.value })),
    images: changed(tags(a), tags(b)),
    urls: changed(a.urls, b.urls),
    git: { from: a.git ?? null, to: b.git ?? null },
  };
}
