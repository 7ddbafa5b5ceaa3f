import type { Context, Hono } from "hono";
import { type StudioDeps, type StudioEnv, num, scopeOf } from "./context.js";
import { DbError, type DbTarget } from "./db-console.js";

const BASE = "/api/projects/:project/envs/:env/db/:service";

function target(c: Context): DbTarget | undefined {
  const s = scopeOf(c);
  return s ? { ...s, service: c.req.param("service") ?? "" } : undefined;
}

/** Postgres errors are the user's SQL going wrong: shown as they are, with the SQLSTATE. */
function failure(c: Context, e: unknown) {
  if (e instanceof DbError) return c.json({ error: e.message }, e.status);
  const pgErr = e as { message?: string; code?: string; position?: string };
  if (pgErr.code) return c.json({ error: pgErr.message, code: pgErr.code, position: pgErr.position ?? null }, 400);
  return c.json({ error: (e as Error).message }, 502);
}

/** The database console. The password has its own endpoint, called only on a click. */
export function databaseRoutes(app: Hono<StudioEnv>, deps: StudioDeps): void {
  const key = (c: Context<StudioEnv>, t: DbTarget) => `${c.get("session")}|${t.project}/${t.env}/${t.service}`;

  app.get(BASE, async (c) => {
    const t = target(c);
    if (!t) return c.json({ error: "no such project or environment" }, 404);
    try { return c.json({ ...(await deps.db.info(t)), writes: deps.writes.get(key(c, t)) === true }); } catch (e) { return failure(c, e); }
  });

  app.get(`${BASE}/password`, async (c) => {
    const t = target(c);
    if (!t) return c.json({ error: "no such project or environment" }, 404);
    try { return c.json({ password: await deps.db.password(t) }); } catch (e) { return failure(c, e); }
  });

  app.get(`${BASE}/tables`, async (c) => {
    const t = target(c);
    if (!t) return c.json({ error: "no such project or environment" }, 404);
    try { return c.json(await deps.db.tables(t)); } catch (e) { return failure(c, e); }
  });

  app.post(`${BASE}/writes`, async (c) => {
    const t = target(c);
    if (!t) return c.json({ error: "no such project or environment" }, 404);
    const body = await c.req.json<{ enabled?: unknown }>().catch(() => ({ enabled: undefined }));
    if (typeof body.enabled !== "boolean") return c.json({ error: "send {\"enabled\": true|false}" }, 400);
    deps.writes.set(key(c, t), body.enabled);
    return c.json({ writes: body.enabled });
  });

  app.post(`${BASE}/query`, async (c) => {
    const t = target(c);
    if (!t) return c.json({ error: "no such project or environment" }, 404);
    const body = await c.req.json<{ sql?: unknown }>().catch(() => ({ sql: undefined }));
    if (typeof body.sql !== "string") return c.json({ error: "send {\"sql\": \"...\"}" }, 400);
    const writes = deps.writes.get(key(c, t)) === true;
    try {
      const r = await deps.db.run(t, body.sql, writes);
      const limit = Math.floor(num(c, "limit", 100));
      return c.json({ ...r, rows: r.rows.slice(0, limit), total: r.rows.length, offset: 0, writes });
    } catch (e) { return failure(c, e); }
  });

  app.get("/api/db-results/:id", (c) => {
    const p = deps.db.page(c.req.param("id"), num(c, "offset", 0), num(c, "limit", 100));
    return p ? c.json(p) : c.json({ error: "that result is gone: run the statement again" }, 404);
  });
}
