import type { Context, Hono } from "hono";
import { nextScheduled } from "../data/backup-schedule.js";
import { scheduledJobs } from "../data/backup-scheduler.js";
import { listBackups } from "../data/backups.js";
import { readArchive, recoveryWindow } from "../data/pitr-window.js";
import { ARCHIVE_TIMEOUT_SECONDS } from "../plan/wal-archive.js";
import { runningContainer } from "../runtime/docker.js";
import type { RecoveryWindowInfo } from "./api-types.js";
import { type StudioDeps, type StudioEnv, num, scopeOf } from "./context.js";
import { DbError, type DbTarget } from "./db-console.js";
import { fail, route } from "./typed-route.js";

/** The point-in-time window of a service: its base backups here and its archive, read in its running container. */
async function windowOf(t: DbTarget): Promise<RecoveryWindowInfo | null> {
  const records = listBackups(t.project, t.env, t.service);
  if (!records.some((r) => r.format === "basebackup")) return null;
  const c = await runningContainer(t.project, t.env, t.service).catch(() => undefined);
  const w = recoveryWindow(records, c ? await readArchive(c.containerId) : undefined);
  return w
    ? {
        from: w.from,
        to: w.to ?? null,
        baseBackups: w.baseBackups,
        archive: w.archive ?? null,
        archiveTimeoutSeconds: ARCHIVE_TIMEOUT_SECONDS,
      }
    : null;
}

const BASE = "/api/projects/:project/envs/:env/db/:service";
const NO_SCOPE = "no such project or environment";

function target(c: Context): DbTarget | undefined {
  const s = scopeOf(c);
  return s ? { ...s, service: c.req.param("service") ?? "" } : undefined;
}

/** Postgres errors are the user's SQL going wrong: shown as they are, with the SQLSTATE. */
function failure(c: Context, e: unknown) {
  if (e instanceof DbError) return fail(c, e.status, e.message);
  const pgErr = e as { message?: string; code?: string; position?: string };
  if (pgErr.code) return fail(c, 400, { error: pgErr.message ?? "", code: pgErr.code, position: pgErr.position ?? null });
  return fail(c, 502, (e as Error).message);
}

/** The database console. The password has its own endpoint, called only on a click. */
export function databaseRoutes(app: Hono<StudioEnv>, deps: StudioDeps): void {
  const key = (c: Context<StudioEnv>, t: DbTarget) => `${c.get("session")}|${t.project}/${t.env}/${t.service}`;

  route(app, `GET ${BASE}`, async (c, ok) => {
    const t = target(c);
    if (!t) return fail(c, 404, NO_SCOPE);
    try {
      return ok({ ...(await deps.db.info(t)), writes: deps.writes.get(key(c, t)) === true });
    } catch (e) {
      return failure(c, e);
    }
  });

  route(app, `GET ${BASE}/password`, async (c, ok) => {
    const t = target(c);
    if (!t) return fail(c, 404, NO_SCOPE);
    try {
      return ok({ password: await deps.db.password(t) });
    } catch (e) {
      return failure(c, e);
    }
  });

  // What this machine has: the backup store and the schedule of the deployed platform.yml.
  route(app, `GET ${BASE}/backups`, async (c, ok) => {
    const t = target(c);
    if (!t) return fail(c, 404, NO_SCOPE);
    const job = scheduledJobs().find((j) => j.project === t.project && j.env === t.env && j.service === t.service);
    const backups = listBackups(t.project, t.env, t.service).map((r) => ({
      id: r.id,
      kind: r.kind,
      createdAt: r.createdAt,
      bytes: r.bytes,
      deployment: r.deployment ?? null,
      verified: r.verified !== undefined,
      restored: r.verified?.restored ?? null,
      base: r.format === "basebackup",
    }));
    const schedule = job ? { cron: job.schedule, keep: job.keep ?? null, next: nextScheduled(job.schedule)?.toISOString() ?? null } : null;
    return ok({ backups, schedule, window: await windowOf(t) });
  });

  route(app, `GET ${BASE}/tables`, async (c, ok) => {
    const t = target(c);
    if (!t) return fail(c, 404, NO_SCOPE);
    try {
      return ok(await deps.db.tables(t));
    } catch (e) {
      return failure(c, e);
    }
  });

  // The body is the browser's word, not the contract's: checked before use.
  route(app, `POST ${BASE}/writes`, async (c, ok) => {
    const t = target(c);
    if (!t) return fail(c, 404, NO_SCOPE);
    const body = await c.req.json<{ enabled?: unknown }>().catch(() => ({ enabled: undefined }));
    if (typeof body.enabled !== "boolean") return fail(c, 400, 'send {"enabled": true|false}');
    deps.writes.set(key(c, t), body.enabled);
    return ok({ writes: body.enabled });
  });

  route(app, `POST ${BASE}/query`, async (c, ok) => {
    const t = target(c);
    if (!t) return fail(c, 404, NO_SCOPE);
    const body = await c.req.json<{ sql?: unknown }>().catch(() => ({ sql: undefined }));
    if (typeof body.sql !== "string") return fail(c, 400, 'send {"sql": "..."}');
    const writes = deps.writes.get(key(c, t)) === true;
    try {
      const r = await deps.db.run(t, body.sql, writes);
      const limit = Math.floor(num(c, "limit", 100));
      return ok({ ...r, rows: r.rows.slice(0, limit), total: r.rows.length, offset: 0, writes });
    } catch (e) {
      return failure(c, e);
    }
  });

  route(app, "GET /api/db-results/:id", (c, ok) => {
    const p = deps.db.page(c.req.param("id"), num(c, "offset", 0), num(c, "limit", 100));
    return p ? ok(p) : fail(c, 404, "that result is gone: run the statement again");
  });
}
