import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ApiRoute } from "../../../src/studio/api-types.js";
import { buildApp } from "../../../src/studio/app.js";
import { Sessions } from "../../../src/studio/auth.js";
import { DbConsole } from "../../../src/studio/db-console.js";
import { StatsStore } from "../../../src/studio/stats-store.js";

/** Every key of StudioApi: a Record over them, so tsc says when one is missing here. */
const CONTRACT: Record<ApiRoute, true> = {
  "POST /internal/token": true,
  "GET /internal/ping": true,
  "GET /api/session": true,
  "POST /api/logout": true,
  "GET /api/projects": true,
  "GET /api/projects/:project/envs/:env": true,
  "GET /api/projects/:project/envs/:env/deployments": true,
  "GET /api/projects/:project/envs/:env/compare": true,
  "GET /api/projects/:project/envs/:env/stats": true,
  "GET /api/projects/:project/envs/:env/logs": true,
  "GET /api/projects/:project/envs/:env/db/:service": true,
  "GET /api/projects/:project/envs/:env/db/:service/password": true,
  "GET /api/projects/:project/envs/:env/db/:service/tables": true,
  "GET /api/projects/:project/envs/:env/db/:service/backups": true,
  "POST /api/projects/:project/envs/:env/db/:service/writes": true,
  "POST /api/projects/:project/envs/:env/db/:service/query": true,
  "GET /api/db-results/:id": true,
  "GET /api/projects/:project/envs/:env/metrics/routes": true,
  "GET /api/projects/:project/envs/:env/metrics/traces": true,
  "GET /api/traces/:id": true,
};

describe("Studio's API contract (api-types.ts)", () => {
  it("has exactly the routes the app answers: none registered around it, none declared and missing", () => {
    const stats = new StatsStore(join(mkdtempSync(join(tmpdir(), "studio-contract-")), "stats.sqlite"));
    const deps = {
      sessions: new Sessions(),
      stats,
      db: new DbConsole(),
      telemetry: { forScope: () => undefined, all: () => [] },
      writes: new Map<string, boolean>(),
    };
    const app = buildApp(deps, { port: () => 4680, adminKey: "k", ui: new Map() });
    // Middleware and the catch-alls are ALL; the UI's files and /auth are not API routes.
    const served = app.routes.filter((r) => r.method !== "ALL" && /^\/(api|internal)\//.test(r.path)).map((r) => `${r.method} ${r.path}`);
    expect(served.sort()).toEqual(Object.keys(CONTRACT).sort());
    stats.close();
  });
});
