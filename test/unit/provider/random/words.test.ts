import { describe, expect, it } from "vitest";
import { ADJECTIVES, hostLabel, NOUNS, pickWords } from "../../../../src/provider/random/words.js";

/** Public host names never collide: the words avoid every host label in use on the engine. */
const sequence = (...indexes: number[]) => {
  let i = 0;
  return (n: number) => (indexes[i++] ?? 0) % n;
};

describe("URL words", () => {
  it("keeps the first draw when its hosts are free", () => {
    expect(pickWords(["shop-api", "shop-web"], new Set(["other-api-amber-badger"]), sequence(0, 0))).toBe("amber-badger");
  });
  it("draws again when any host of the stack is taken (project a-b + service c = project a + service b-c)", () => {
    const taken = new Set([hostLabel("a-b-c", "amber-badger")]);
    expect(pickWords(["a-b-c", "a-web"], taken, sequence(0, 0, 1, 1))).toBe("bold-beacon");
  });
  it("on a crowded engine, picks among the pairs still free", () => {
    const all = ADJECTIVES.flatMap((a) => NOUNS.map((n) => `${a}-${n}`));
    const taken = new Set(all.filter((w) => w !== "zesty-zephyr").map((w) => hostLabel("p-api", w)));
    expect(pickWords(["p-api"], taken, sequence())).toBe("zesty-zephyr");
    taken.add(hostLabel("p-api", "zesty-zephyr"));
    expect(() => pickWords(["p-api"], taken, sequence())).toThrow(/every pair of URL words is in use on this engine for p-api/);
  });
  it("with no public service, anything goes", () => {
    expect(pickWords([], new Set(), sequence(3, 4))).toBe(`${ADJECTIVES[3]}-${NOUNS[4]}`);
  });
});
