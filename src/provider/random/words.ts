import { hostLabel } from "../contract/labels.js";

export { hostLabel };

// Word lists for public host names (<project>-<service>-<word>-<word>): short (≤ 8 letters,
// which the config rules assume), plain, and inoffensive.
export const ADJECTIVES = [
  "amber",
  "bold",
  "brave",
  "bright",
  "calm",
  "clever",
  "cosmic",
  "crisp",
  "eager",
  "fancy",
  "gentle",
  "golden",
  "happy",
  "jolly",
  "keen",
  "kind",
  "lively",
  "lucky",
  "mellow",
  "merry",
  "nimble",
  "noble",
  "polite",
  "proud",
  "quick",
  "quiet",
  "rapid",
  "silent",
  "silver",
  "smooth",
  "snowy",
  "solar",
  "steady",
  "sunny",
  "swift",
  "tidy",
  "vivid",
  "warm",
  "witty",
  "zesty",
] as const;

export const NOUNS = [
  "badger",
  "beacon",
  "breeze",
  "canyon",
  "cedar",
  "comet",
  "coral",
  "delta",
  "falcon",
  "fern",
  "forest",
  "galaxy",
  "garden",
  "harbor",
  "heron",
  "island",
  "lagoon",
  "lantern",
  "maple",
  "meadow",
  "meteor",
  "orbit",
  "otter",
  "panda",
  "pebble",
  "pine",
  "planet",
  "prairie",
  "quartz",
  "raven",
  "river",
  "rocket",
  "sparrow",
  "summit",
  "thunder",
  "tiger",
  "valley",
  "willow",
  "wolf",
  "zephyr",
] as const;

/**
 * Two words such that no host label of this stack is already in use on the engine (the edge
 * routes by label, so a shared one would send one app's traffic to another): random draws
 * first, then, on a crowded engine, a random pick among the pairs still free.
 */
export function pickWords(prefixes: readonly string[], taken: ReadonlySet<string>, randomIndex: (n: number) => number): string {
  const free = (w: string) => prefixes.every((p) => !taken.has(hostLabel(p, w)));
  for (let i = 0; i < 20; i++) {
    const w = `${ADJECTIVES[randomIndex(ADJECTIVES.length)]}-${NOUNS[randomIndex(NOUNS.length)]}`;
    if (free(w)) return w;
  }
  const left = ADJECTIVES.flatMap((a) => NOUNS.map((n) => `${a}-${n}`)).filter(free);
  if (left.length === 0)
    throw new Error(
      `every pair of URL words is in use on this engine for ${prefixes.join(", ")}: remove stacks that are no longer needed (platform destroy)`,
    );
  return left[randomIndex(left.length)] as string;
}
