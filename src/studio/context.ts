import type { Context } from "hono";
import type { Sessions } from "./auth.js";
import type { DbConsole } from "./db-console.js";
import type { StatsStore } from "./stats-store.js";
import { listProjects } from "./overview.js";
import type { TelemetrySources } from "./telemetry-sources.js";

/** What the routes share: sessions, the stores, the database console. */
export interface StudioDeps {
  sessions: Sessions;
  stats: StatsStore;
  db: DbConsole;
  /** The telemetry stores: the engine's, and each Kubernetes environment's (a copy). */
  telemetry: TelemetrySources;
  /** Per session and database: whether writes are switched on. */
  writes: Map<string, boolean>;
}

export type StudioEnv = { Variables: { session: string } };

/** The project and environment of a route, only when they exist (never a path from the URL). */
export function scopeOf(c: Context): { project: string; env: string } | undefined {
  const project = c.req.param("project");
  const env = c.req.param("env");
  const p = listProjects().find((x) => x.name === project);
  return p && env && p.envs.includes(env) ? { project: p.name, env } : undefined;
}

/** A number from the query string, or the fallback. */
export function num(c: Context, name: string, fallback: number): number {
  const v = Number(c.req.query(name));
  return c.req.query(name) !== undefined && Number.isFinite(v) ? v : fallback;
}
