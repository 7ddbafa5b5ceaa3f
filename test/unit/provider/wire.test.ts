import { describe, expect, it } from "vitest";
import { diffByKeys, type ResourceHandler } from "../../../src/provider/handler.js";
import { asSecret, changedKeys, hasUnknown, reveal, stableJson, UNKNOWN } from "../../../src/provider/wire.js";

const handler = (over: Partial<ResourceHandler> = {}): ResourceHandler => ({
  inputKeys: ["image", "env", "labels"],
  create: async () => ({ id: "x", outs: {} }),
  read: async () => ({}),
  delete: async () => {},
  ...over,
});

describe("wire values", () => {
  it("reveals nested secrets and keeps plain values", () => {
    expect(reveal({ a: asSecret({ b: asSecret("pw") }), c: [asSecret(1), 2] })).toEqual({ a: { b: "pw" }, c: [1, 2] });
  });
  it("finds unknowns anywhere, inside secrets too", () => {
    expect(hasUnknown({ a: [1, { b: UNKNOWN }] })).toBe(true);
    expect(hasUnknown(asSecret(UNKNOWN))).toBe(true);
    expect(hasUnknown({ a: "known" })).toBe(false);
  });
  it("stable JSON ignores key order", () => {
    expect(stableJson({ b: 1, a: { d: 2, c: 3 } })).toBe(stableJson({ a: { c: 3, d: 2 }, b: 1 }));
  });
});

describe("diff by keys", () => {
  const cases: [string, Record<string, unknown>, Record<string, unknown>, string[]][] = [
    ["same inputs", { image: "i", env: { A: "1" } }, { image: "i", env: { A: "1" } }, []],
    ["map order only", { env: { A: "1", B: "2" } }, { env: { B: "2", A: "1" } }, []],
    ["secret wrapper vs plain of same value", { env: asSecret({ A: "1" }) }, { env: { A: "1" } }, []],
    ["changed image", { image: "i1" }, { image: "i2" }, ["image"]],
    ["changed secret env", { env: asSecret({ A: "1" }) }, { env: asSecret({ A: "2" }) }, ["env"]],
    ["unknown during preview", { image: "i" }, { image: UNKNOWN }, ["image"]],
    ["outputs in olds are not inputs", { image: "i", containerName: "x" }, { image: "i" }, []],
  ];
  it.each(cases)("%s", (_name, olds, news, keys) => {
    expect(changedKeys(olds, news, ["image", "env", "labels"])).toEqual(keys);
    const d = diffByKeys(handler(), olds, news);
    expect(d.changes).toBe(keys.length > 0);
    if (keys.length) expect(d.replaces).toEqual(keys);
  });
  it("updatable keys update in place; replacements are always new before old", () => {
    const h = handler({ updatable: ["labels"] });
    expect(diffByKeys(h, { labels: { a: "1" } }, { labels: { a: "2" } })).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(diffByKeys(h, { image: "1" }, { image: "2" })).toEqual({ changes: true, replaces: ["image"], deleteBeforeReplace: false });
  });
  it("a forced replacement (a container that no longer runs) replaces with unchanged inputs", () => {
    const h = handler({ forceReplace: (olds) => (olds.running === false ? ["running"] : []) });
    expect(diffByKeys(h, { image: "i", running: true }, { image: "i" })).toEqual({ changes: false });
    expect(diffByKeys(h, { image: "i" }, { image: "i" })).toEqual({ changes: false });
    expect(diffByKeys(h, { image: "i", running: false }, { image: "i" })).toEqual({
      changes: true,
      replaces: ["running"],
      deleteBeforeReplace: false,
    });
  });
});
