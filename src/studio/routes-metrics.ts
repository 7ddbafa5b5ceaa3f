import type { Hono } from "hono";
import { routeStats, routeTraces, trace } from "../telemetry/index.js";
import { type StudioDeps, type StudioEnv, num, scopeOf } from "./context.js";

const EMPTY = { routes: [], bucketMs: 0 };

/** The Metrics tab: per-route RED, a route's sampled traces, one trace as a waterfall. */
export function metricsRoutes(app: Hono<StudioEnv>, deps: StudioDeps): void {
  app.get("/api/projects/:project/envs/:env/metrics/routes", (c) => {
    const s = scopeOf(c);
    if (!s) return c.json({ error: "no such project or environment" }, 404);
    const to = num(c, "to", Date.now());
    const from = num(c, "from", to - 3600_000);
    const store = deps.telemetry();
    return c.json(store ? routeStats(store, { ...s, from, to, buckets: num(c, "buckets", 40) }) : { ...EMPTY, from, to });
  });

  app.get("/api/projects/:project/envs/:env/metrics/traces", (c) => {
    const s = scopeOf(c);
    const service = c.req.query("service");
    const route = c.req.query("route");
    if (!s || !service || !route) return c.json({ error: "name a service and a route" }, 400);
    const to = num(c, "to", Date.now());
    const store = deps.telemetry();
    const order = c.req.query("order") === "slowest" ? "slowest" : "recent";
    return c.json(store ? routeTraces(store, { ...s, service, route, method: c.req.query("method"), from: num(c, "from", to - 3600_000), to, limit: num(c, "limit", 50), order }) : []);
  });

  app.get("/api/traces/:id", (c) => {
    const store = deps.telemetry();
    const t = store ? trace(store, c.req.param("id")) : null;
    return t ? c.json(t) : c.json({ error: "no such trace in the store" }, 404);
  });
}
