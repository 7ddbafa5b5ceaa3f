import type { PreviewSummary, ServicePreview, StepPreview } from "../engine/preview.js";
import type { PlanReport, ServiceReport } from "../plan/plan-report.js";
import { BUILD_ENV_SECRET } from "../plan/recipes/dockerfile-parts.js";

/**
 * `platform plan` output, a pure function of the report and the preview (golden-tested on
 * fixtures). `preview` is the summary, or why there is none.
 */
export type PreviewState =
  | { kind: "done"; summary: PreviewSummary }
  | { kind: "skipped" }
  | { kind: "not-deployed"; reason: string }
  | { kind: "blocked"; reason: string }
  | { kind: "failed"; message: string };

function changed(step: StepPreview): string {
  return step.diffs.length ? ` (changed: ${[...step.diffs].sort().join(", ")})` : "";
}

/** One line of what a deploy would do to a service's image, migration and container. */
export function describeServicePreview(p: ServicePreview | undefined): string {
  if (!p) return "nothing (not in the stack's program)";
  const parts: string[] = [];
  const { image, migrate, container } = p;
  if (image?.op === "create") parts.push("build the image (or reuse one built from the same inputs)");
  else if (image && image.op !== "same") parts.push("rebuild the image (its inputs changed)");
  if (migrate && migrate.op !== "same") parts.push("run the migration");
  if (container?.op === "create") parts.push("start the container");
  else if (container?.op === "replace") parts.push(`replace the container${changed(container)}`);
  else if (container?.op === "delete") parts.push("remove the container");
  else if (container && container.op !== "same") parts.push(`${container.op} the container${changed(container)}`);
  return parts.length ? parts.join(", ") : "unchanged";
}

const strip = (text: string, prefix: string) => (text.startsWith(prefix) ? text.slice(prefix.length) : text);

function serviceLines(s: ServiceReport, preview: PreviewState): string[] {
  const head = [s.type, ...(s.public ? ["public"] : []), s.build].join(", ");
  const lines = [`${s.name}  ${head}`];
  const field = (label: string, text: string | undefined) => {
    if (text) lines.push(`  ${`${label}:`.padEnd(12)}${text}`);
  };
  field("install", s.install);
  field("runtime", s.runtime);
  field("app", s.app && strip(s.app, "app: "));
  field("start", s.start && strip(s.start, "start: "));
  if (s.dependsOn.length) field("after", s.dependsOn.join(", "));
  if (s.buildEnv.length) {
    const args = s.buildArgs.length ? `; also --build-arg: ${s.buildArgs.join(", ")}` : "";
    field("build env", `${s.buildEnv.join(", ")} (BuildKit secret ${BUILD_ENV_SECRET}${args})`);
  }
  for (const f of s.fallbacks) field("fallback", f);
  for (const d of s.details) {
    const at = d.indexOf(": ");
    field(d.slice(0, at), d.slice(at + 2));
  }
  if (preview.kind === "done") field("deploy", describeServicePreview(preview.summary.services[s.name]));
  return lines;
}

function footer(preview: PreviewState): string {
  switch (preview.kind) {
    case "done": {
      const counts = Object.entries(preview.summary.counts)
        .filter(([, n]) => n > 0)
        .map(([op, n]) => `${n} ${op}`)
        .join(", ");
      return `Pulumi preview: ${counts || "no resources"}`;
    }
    case "skipped":
      return "Pulumi preview skipped (--no-preview): what would be rebuilt or replaced is not shown";
    case "not-deployed":
      return `not deployed yet (${preview.reason}): a deploy creates every service`;
    case "blocked":
      return `no Pulumi preview: ${preview.reason}`;
    case "failed":
      return `Pulumi preview failed: ${preview.message}`;
  }
}

function secretLines(report: PlanReport): string[] {
  if (report.secrets.length === 0) return [];
  const flag = report.env === "preview" ? "" : ` --env ${report.env}`;
  const lines = [`secrets: ${report.secrets.map((s) => `${s.name} (${s.set ? "set" : "NOT SET"})`).join(", ")}`];
  for (const s of report.secrets.filter((x) => !x.set))
    lines.push(`  a deploy stops before building until it is set: platform secrets set ${s.name}${flag}`);
  return [...lines, ""];
}

export function renderPlanText(report: PlanReport, preview: PreviewState): string {
  const out = [
    `Plan for ${report.project} (${report.env}): ${report.services.length} service${report.services.length === 1 ? "" : "s"}, in deploy order`,
    "",
  ];
  for (const s of report.services) out.push(...serviceLines(s, preview), "");
  out.push(...secretLines(report), footer(preview));
  return `${out.join("\n")}\n`;
}

/** `--json`: the report as is, each service with its preview, and the preview's state. */
export function renderPlanJson(report: PlanReport, preview: PreviewState): string {
  const services = report.services.map((s) => ({
    ...s,
    ...(preview.kind === "done" ? { deploy: preview.summary.services[s.name] ?? null } : {}),
  }));
  const state =
    preview.kind === "done"
      ? { preview: "done", counts: preview.summary.counts }
      : {
          preview: preview.kind,
          ...(preview.kind === "not-deployed" || preview.kind === "blocked"
            ? { reason: preview.reason }
            : preview.kind === "failed"
              ? { message: preview.message }
              : {}),
        };
  return `${JSON.stringify({ project: report.project, env: report.env, services, secrets: report.secrets, ...state }, null, 2)}\n`;
}
