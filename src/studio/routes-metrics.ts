import type { Hono } from "hono";
import { routeStats, routeTraces, trace } from "../telemetry/index.js";
import { type StudioDeps, type StudioEnv, num, scopeOf } from "./context.js";
import { fail, route } from "./typed-route.js";

/** The Metrics tab: per-route RED, a route's sampled traces, one trace as a waterfall. */
export function metricsRoutes(app: Hono<StudioEnv>, deps: StudioDeps): void {
  route(app, "GET /api/projects/:project/envs/:env/metrics/routes", (c, ok) => {
    const s = scopeOf(c);
    if (!s) return fail(c, 404, "no such project or environment");
    const to = num(c, "to", Date.now());
    const from = num(c, "from", to - 3600_000);
    const store = deps.telemetry.forScope(s);
    // Before the receiver has made its store there is nothing to count: an empty table.
    return ok(store ? routeStats(store, { ...s, from, to, buckets: num(c, "buckets", 40) }) : { routes: [], bucketMs: 0, from, to });
  });

  route(app, "GET /api/projects/:project/envs/:env/metrics/traces", (c, ok) => {
    const s = scopeOf(c);
    const service = c.req.query("service");
    const template = c.req.query("route");
    if (!s || !service || !template) return fail(c, 400, "name a service and a route");
    const to = num(c, "to", Date.now());
    const store = s && deps.telemetry.forScope(s);
    const order = c.req.query("order") === "slowest" ? "slowest" : "recent";
    const from = num(c, "from", to - 3600_000);
    const q = { ...s, service, route: template, method: c.req.query("method"), from, to, limit: num(c, "limit", 50), order } as const;
    return ok(store ? routeTraces(store, q) : []);
  });

  route(app, "GET /api/traces/:id", (c, ok) => {
    // A trace id names no environment: the first store that holds it.
    const t = deps.telemetry
      .all()
      .map((store) => trace(store, c.req.param("id")))
      .find((x) => x !== null);
    return t ? ok(t) : fail(c, 404, "no such trace in the store");
  });
}
