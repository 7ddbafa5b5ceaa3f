import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempPlatformHome } from "../../fixtures/temp-home.js";
import { type DeploymentRecord, saveRecord } from "../../../src/engine/history.js";
import { envState } from "../../../src/studio/overview.js";

const currentHome = withTempPlatformHome("all");

function deployment(env: string, id: string, outcome: DeploymentRecord["outcome"], startedAt: string): void {
  const configCopy = join(currentHome(), `${env}-${id}.yml`);
  writeFileSync(configCopy, "project: p\nservices:\n  db:\n    type: postgres\n  api:\n    type: fastapi\n");
  saveRecord({
    id,
    project: "p",
    env,
    startedAt,
    outcome,
    configHash: id,
    cliVersion: "0.1.0",
    configCopy,
    services: {},
    migrations: {},
    urls: {},
  });
}

describe("the sidebar's environment state", () => {
  it("running only when the last deployment succeeded and every one of its services runs", () => {
    deployment("a", "dep_1", "succeeded", "2026-11-24T01:00:00.000Z");
    expect(envState("p", "a", new Set(["db", "api"]))).toBe("running");
    expect(envState("p", "a", new Set(["db"]))).toBe("degraded");
    // Destroyed (or stopped): nothing of it runs on this engine; its history stays.
    expect(envState("p", "a", new Set())).toBe("stopped");
  });

  it("degraded after a failed deployment even with everything running; deploying while one runs", () => {
    deployment("b", "dep_1", "succeeded", "2026-11-24T01:00:00.000Z");
    deployment("b", "dep_2", "failed", "2026-11-24T02:00:00.000Z");
    expect(envState("p", "b", new Set(["db", "api"]))).toBe("degraded");
    deployment("b", "dep_3", "running", "2026-11-24T03:00:00.000Z");
    expect(envState("p", "b", new Set(["db", "api"]))).toBe("deploying");
  });
});
