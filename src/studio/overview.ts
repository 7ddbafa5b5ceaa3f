import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { type DeploymentRecord, listRecords } from "../engine/history.js";
import { keptRuntime } from "../engine/stack-ops.js";
import { inspectEdge } from "../runtime/docker.js";
import type { Instance } from "../runtime/target-runtime.js";
import { homePaths } from "../home/layout.js";
import type { EdgeView, EnvState, EnvironmentView, ProjectState, ServiceView } from "./api-types.js";

/** Projects with a deployment history under the platform home, and their environments. */
export function listProjects(): { name: string; envs: string[] }[] {
  const ls = (dir: string) => {
    try {
      return readdirSync(dir).sort();
    } catch {
      return [];
    }
  };
  return ls(homePaths.projectsDir())
    .map((name) => ({ name, envs: ls(join(homePaths.projectsDir(), name, "deployments")) }))
    .filter((p) => p.envs.length > 0);
}

/**
 * What the sidebar's dot says of an environment: every service of its last good deployment
 * running after a successful deployment; a deployment in progress; some service not running or
 * the last deployment failed; nothing running on this engine (destroyed, stopped, or on another
 * target).
 */
export function envState(project: string, env: string, running: ReadonlySet<string>): EnvState {
  const records = listRecords(project, env);
  if (records[0]?.outcome === "running") return "deploying";
  if (running.size === 0) return "stopped";
  const expected = [...serviceTypes(records.find((r) => r.outcome === "succeeded")).keys()];
  return records[0]?.outcome === "succeeded" && expected.every((s) => running.has(s)) ? "running" : "degraded";
}

/** listProjects with each environment's state: from where each runs (its containers, or its cluster's pods). */
export async function projectStates(): Promise<ProjectState[]> {
  const runningIn = async (project: string, env: string) =>
    new Set(
      (
        await keptRuntime(project, env)
          .instances()
          .catch(() => [])
      )
        .filter((c) => c.state === "running")
        .map((c) => c.service),
    );
  return Promise.all(
    listProjects().map(async (p) => ({
      ...p,
      states: Object.fromEntries(await Promise.all(p.envs.map(async (e) => [e, envState(p.name, e, await runningIn(p.name, e))]))),
    })),
  );
}

/** Service names and types from a deployment's copy of platform.yml, in file order. */
export function serviceTypes(r: DeploymentRecord | undefined): Map<string, string> {
  return new Map([...servicesOf(r)].map(([n, s]) => [n, s.type ?? "unknown"]));
}

/** The services of a deployment's copy of platform.yml, as written (empty when it cannot be read). */
function servicesOf(r: DeploymentRecord | undefined): Map<string, { type?: string; replicas?: number }> {
  if (!r?.configCopy) return new Map();
  try {
    const doc = parse(readFileSync(r.configCopy, "utf8")) as { services?: Record<string, { type?: string; replicas?: number } | null> };
    return new Map(Object.entries(doc.services ?? {}).map(([n, s]) => [n, s ?? {}]));
  } catch {
    return new Map();
  }
}

/** What runs in one environment: each service's state, health, image, URL, limits. */
export async function environmentView(project: string, env: string): Promise<EnvironmentView> {
  const records = listRecords(project, env);
  const last = records[0];
  const lastGood = records.find((r) => r.outcome === "succeeded") ?? last;
  const types = serviceTypes(lastGood);
  const wanted = servicesOf(lastGood);
  const runtime = keptRuntime(project, env);
  const containers = await runtime.instances();
  const names = [...new Set([...types.keys(), ...containers.map((c) => c.service)])];
  const services = await Promise.all(
    names.map(async (name): Promise<ServiceView> => {
      const c = containers.find((x) => x.service === name && x.state === "running") ?? containers.find((x) => x.service === name);
      const lastPhase = last?.services[name]?.phase ?? null;
      const running = c?.state === "running";
      const failed = lastPhase === "failed" && last?.outcome !== "succeeded";
      return {
        name,
        type: types.get(name) ?? "unknown",
        state: c?.state ?? "not deployed",
        status: c?.status ?? "",
        health: !c ? "not deployed" : !running ? "stopped" : failed ? "unhealthy" : "healthy",
        image: c?.image ?? lastGood?.images?.[name]?.tag ?? "",
        url: lastGood?.urls[name] ?? null,
        details: c ? ((await c.details()) ?? null) : null,
        lastPhase,
        ...replicasOf(
          wanted.get(name)?.replicas,
          containers.filter((x) => x.service === name),
          !runtime.words.countsCopies,
        ),
        ...(types.get(name) === "redis" ? { redis: c && running ? ((await c.redis()) ?? null) : null } : {}),
      };
    }),
  );
  const e = await inspectEdge().catch(() => undefined);
  const edge: EdgeView | null = e
    ? {
        mode: e.mode,
        running: e.running,
        listens: e.listens,
        ...(e.appsDomain ? { appsDomain: e.appsDomain } : {}),
        ...(e.acmeCa ? { acmeCa: e.acmeCa } : {}),
      }
    : null;
  const cronRuns = await runtime.cronRuns(20).catch(() => undefined);
  return {
    project,
    env,
    services,
    edge,
    ...(cronRuns ? { cronRuns: [...cronRuns].reverse() } : {}),
    lastDeployment: last
      ? { id: last.id, outcome: last.outcome, startedAt: last.startedAt, finishedAt: last.finishedAt, git: last.git, by: last.by }
      : null,
  };
}

/**
 * A service of several copies (platform.yml replicas): each container, in replica order. On
 * Kubernetes every service's pods are listed (which node each runs on is worth seeing).
 */
function replicasOf(want: number | undefined, mine: readonly Instance[], pods: boolean): Pick<ServiceView, "replicas" | "wantReplicas"> {
  if (!pods && !(want && want > 1)) return {};
  const replicas = [...mine].sort((a, b) => a.replica - b.replica).map((c) => ({ container: c.name, state: c.state, status: c.status }));
  return { replicas, wantReplicas: want ?? Math.max(1, replicas.length) };
}
