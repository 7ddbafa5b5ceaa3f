import type { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { findRecord } from "../engine/history.js";
import { streamLogs } from "../runtime/log-stream.js";
import { type StudioDeps, type StudioEnv, num, scopeOf } from "./context.js";
import { compareDeployments, deploymentViews } from "./history-view.js";
import { environmentView, projectStates } from "./overview.js";

const BASE = "/api/projects/:project/envs/:env";

/** Projects, services, deployment history with comparisons, logs, CPU and memory. */
export function environmentRoutes(app: Hono<StudioEnv>, deps: StudioDeps): void {
  app.get("/api/projects", async (c) => c.json(await projectStates()));

  app.get(BASE, async (c) => {
    const s = scopeOf(c);
    return s ? c.json(await environmentView(s.project, s.env)) : c.json({ error: "no such project or environment" }, 404);
  });

  app.get(`${BASE}/deployments`, (c) => {
    const s = scopeOf(c);
    return s ? c.json(deploymentViews(s.project, s.env)) : c.json({ error: "no such project or environment" }, 404);
  });

  app.get(`${BASE}/compare`, (c) => {
    const s = scopeOf(c);
    const a = s && findRecord(s.project, s.env, c.req.query("from") ?? "");
    const b = s && findRecord(s.project, s.env, c.req.query("to") ?? "");
    return a && b ? c.json(compareDeployments(a, b)) : c.json({ error: "name two deployments of this environment: ?from=dep_...&to=dep_..." }, 400);
  });

  app.get(`${BASE}/stats`, (c) => {
    const s = scopeOf(c);
    if (!s) return c.json({ error: "no such project or environment" }, 404);
    const to = num(c, "to", Date.now());
    return c.json({ from: num(c, "from", to - 3600_000), to, series: deps.stats.series(s.project, s.env, num(c, "from", to - 3600_000), to) });
  });

  // Server-sent events: one `line` event per log line, `end` when no stream is left.
  app.get(`${BASE}/logs`, (c) => {
    const s = scopeOf(c);
    if (!s) return c.json({ error: "no such project or environment" }, 404);
    const services = (c.req.query("services") ?? "").split(",").filter(Boolean);
    const sinceSeconds = Math.max(0, Math.floor(num(c, "since", 0)));
    const tail = Math.min(5000, Math.max(1, Math.floor(num(c, "tail", 500))));
    const follow = c.req.query("follow") === "1";
    return streamSSE(c, async (stream) => {
      let done!: () => void;
      const finished = new Promise<void>((r) => { done = r; });
      const stop = await streamLogs({ ...s, services, sinceSeconds, tail, follow },
        (l) => { void stream.writeSSE({ event: "line", data: JSON.stringify(l) }); },
        () => { void stream.writeSSE({ event: "end", data: "{}" }).then(done); });
      stream.onAbort(() => { stop(); done(); });
      await finished;
      stop();
    });
  });
}
