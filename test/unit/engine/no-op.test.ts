import { describe, expect, it } from "vitest";
import { withTempPlatformHome } from "../../fixtures/temp-home.js";
import { checkpointDigest, readApplied, sameEvents, unchangedSince, writeApplied } from "../../../src/engine/no-op.js";
import { toImage, toProgress } from "../../../src/engine/progress.js";

const urn = (type: string, name: string) => `urn:pulumi:preview::shop::${type}::${name}`;
const resources = [
  { urn: urn("pulumi:pulumi:Stack", "shop-preview"), type: "pulumi:pulumi:Stack", outputs: { api_external_url: "https://a.test" } },
  { urn: urn("pulumi:providers:platform", "default"), type: "pulumi:providers:platform", id: "p" },
  { urn: urn("platform:docker:Image", "api-image"), type: "platform:docker:Image", id: "i", outputs: { tag: "shop_api:1", hash: "h1" } },
  { urn: urn("platform:docker:Job", "api-migrate"), type: "platform:docker:Job", id: "j", outputs: { exitCode: 0 } },
  { urn: urn("platform:docker:Container", "api"), type: "platform:docker:Container", id: "c", outputs: {} },
];

describe("a deploy with nothing to do, proven without the engine", () => {
  withTempPlatformHome("each");

  it("only when the fingerprint is the last run's and the checkpoint is the one it left", () => {
    const applied = { fingerprint: "f1", checkpoint: checkpointDigest(resources), deploymentId: "dep_1" };
    expect(unchangedSince(applied, "f1", resources)).toBe(true);
    expect(unchangedSince(applied, "f2", resources)).toBe(false);
    expect(unchangedSince(applied, undefined, resources)).toBe(false);
    expect(unchangedSince(applied, "f1", undefined)).toBe(false);
    expect(unchangedSince(undefined, "f1", resources)).toBe(false);
    // Anything else that changed the state (pulumi up, an import, a failed run) changes the digest.
    const edited = resources.map((r) => (r.type === "platform:docker:Job" ? { ...r, outputs: { exitCode: 1 } } : r));
    expect(unchangedSince(applied, "f1", edited)).toBe(false);
  });

  it("keeps what was applied per stack, and reads nothing from a missing or broken file", () => {
    expect(readApplied("shop", "preview")).toBeUndefined();
    writeApplied("shop", "preview", { fingerprint: "f", checkpoint: "c", deploymentId: "dep_1" });
    expect(readApplied("shop", "preview")).toEqual({ fingerprint: "f", checkpoint: "c", deploymentId: "dep_1" });
    expect(readApplied("shop", "other")).toBeUndefined();
  });

  it("says what the engine's no-op says: each service unchanged, the images it runs, the count", () => {
    const { events, same } = sameEvents(resources);
    expect(same).toBe(4);
    expect(events.map(toProgress).filter(Boolean)).toEqual([{ service: "api", phase: "unchanged", at: expect.any(Number) }]);
    expect(events.map(toImage).filter(Boolean)).toEqual([{ service: "api", tag: "shop_api:1", hash: "h1" }]);
  });
});
