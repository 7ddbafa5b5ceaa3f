import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { DeploymentRecord } from "../../../src/engine/history.js";
import { compareDeployments, toDeploymentView } from "../../../src/studio/history-view.js";

const dir = mkdtempSync(join(tmpdir(), "studio-history-"));
function record(id: string, yml: string, images: Record<string, string>, extra: Partial<DeploymentRecord> = {}): DeploymentRecord {
  const configCopy = join(dir, `${id}.platform.yml`);
  writeFileSync(configCopy, yml);
  return {
    id,
    project: "p",
    env: "preview",
    startedAt: "2026-11-24T01:00:00.000Z",
    finishedAt: "2026-11-24T01:00:10.000Z",
    outcome: "succeeded",
    configHash: id,
    cliVersion: "0.1.0",
    configCopy,
    urls: { api: "https://p-api-a-b.localhost" },
    images: Object.fromEntries(Object.entries(images).map(([k, tag]) => [k, { tag, hash: tag }])),
    services: {
      api: {
        phase: "healthy",
        phases: [
          { phase: "Installing", at: "2026-11-24T01:00:00.000Z" },
          { phase: "built", at: "2026-11-24T01:00:04.000Z" },
          { phase: "starting", at: "2026-11-24T01:00:05.000Z" },
          { phase: "healthy", at: "2026-11-24T01:00:08.000Z" },
        ],
      },
    },
    migrations: {},
    ...extra,
  };
}

describe("deployment history for Studio", () => {
  it("gives each phase its duration (the last until the deployment ended)", () => {
    const v = toDeploymentView(
      record("dep_a", "x: 1\n", { api: "platform/p_api:1" }, { by: "ann@host", git: { commit: "abc", dirty: true } }),
    );
    expect(v.services[0]!.phases.map((p) => p.ms)).toEqual([4000, 1000, 3000, 2000]);
    expect(v).toMatchObject({ by: "ann@host", durationMs: 10_000, git: { commit: "abc", dirty: true }, noChangeSince: null });
  });

  it("says which deployments had nothing to do (the engine did not run) and since when", () => {
    expect(toDeploymentView(record("dep_b", "x: 1\n", {}, { noChangeSince: "dep_a" })).noChangeSince).toBe("dep_a");
  });

  it("compares two deployments: platform.yml lines and images that changed", () => {
    const a = record("dep_a", "services:\n  api:\n    env:\n      A: 1\n", { api: "platform/p_api:1", web: "platform/p_web:1" });
    const b = record("dep_b", "services:\n  api:\n    env:\n      A: 2\n", { api: "platform/p_api:2", web: "platform/p_web:1" });
    const c = compareDeployments(a, b);
    expect(c.images).toEqual([{ service: "api", from: "platform/p_api:1", to: "platform/p_api:2" }]);
    expect(c.config.filter((p) => p.kind !== "same").map((p) => `${p.kind}:${p.text}`)).toEqual([
      "removed:      A: 1\n",
      "added:      A: 2\n",
    ]);
    expect(c.urls).toEqual([]);
  });
});
