import type { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { findRecord } from "../engine/history.js";
import { keptRuntime } from "../engine/stack-ops.js";
import type { LogLine } from "../runtime/log-stream.js";
import type { LogEvents } from "./api-types.js";
import { type StudioDeps, type StudioEnv, num, scopeOf } from "./context.js";
import { compareDeployments, deploymentViews } from "./history-view.js";
import { environmentView, projectStates } from "./overview.js";
import { fail, route } from "./typed-route.js";

const NO_SCOPE = "no such project or environment";

/** Projects, services, deployment history with comparisons, logs, CPU and memory. */
export function environmentRoutes(app: Hono<StudioEnv>, deps: StudioDeps): void {
  route(app, "GET /api/projects", async (_c, ok) => ok(await projectStates()));

  route(app, "GET /api/projects/:project/envs/:env", async (c, ok) => {
    const s = scopeOf(c);
    return s ? ok(await environmentView(s.project, s.env)) : fail(c, 404, NO_SCOPE);
  });

  route(app, "GET /api/projects/:project/envs/:env/deployments", (c, ok) => {
    const s = scopeOf(c);
    return s ? ok(deploymentViews(s.project, s.env)) : fail(c, 404, NO_SCOPE);
  });

  route(app, "GET /api/projects/:project/envs/:env/compare", (c, ok) => {
    const s = scopeOf(c);
    const a = s && findRecord(s.project, s.env, c.req.query("from") ?? "");
    const b = s && findRecord(s.project, s.env, c.req.query("to") ?? "");
    return a && b ? ok(compareDeployments(a, b)) : fail(c, 400, "name two deployments of this environment: ?from=dep_...&to=dep_...");
  });

  route(app, "GET /api/projects/:project/envs/:env/stats", (c, ok) => {
    const s = scopeOf(c);
    if (!s) return fail(c, 404, NO_SCOPE);
    const to = num(c, "to", Date.now());
    const from = num(c, "from", to - 3600_000);
    return ok({ from, to, series: deps.stats.series(s.project, s.env, from, to) });
  });

  // Server-sent events: one `line` event per log line, `end` when no stream is left.
  route(app, "GET /api/projects/:project/envs/:env/logs", (c) => {
    const s = scopeOf(c);
    if (!s) return fail(c, 404, NO_SCOPE);
    const services = (c.req.query("services") ?? "").split(",").filter(Boolean);
    const sinceSeconds = Math.max(0, Math.floor(num(c, "since", 0)));
    const tail = Math.min(5000, Math.max(1, Math.floor(num(c, "tail", 500))));
    const follow = c.req.query("follow") === "1";
    return streamSSE(c, async (stream) => {
      let done!: () => void;
      const finished = new Promise<void>((r) => {
        done = r;
      });
      const end: LogEvents["end"] = {};
      const onLine = (l: LogLine) => {
        void stream.writeSSE({ event: "line", data: JSON.stringify(l satisfies LogEvents["line"]) });
      };
      const onEnd = () => {
        void stream.writeSSE({ event: "end", data: JSON.stringify(end) }).then(done);
      };
      // From where the environment runs: its containers, or every pod (replica) on Kubernetes.
      const stop = await keptRuntime(s.project, s.env).streamLogs({ services, sinceSeconds, tail, follow }, onLine, onEnd);
      stream.onAbort(() => {
        stop();
        done();
      });
      await finished;
      stop();
    });
  });
}
