// Word lists for public host names (<project>-<service>-<word>-<word>): short (≤ 8 letters,
// which the config rules assume), plain, and inoffensive.
export const ADJECTIVES = [
  "amber", "bold", "brave", "bright", "calm", "clever", "cosmic", "crisp", "eager", "fancy",
  "gentle", "golden", "happy", "jolly", "keen", "kind", "lively", "lucky", "mellow", "merry",
  "nimble", "noble", "polite", "proud", "quick", "quiet", "rapid", "silent", "silver", "smooth",
  "snowy", "solar", "steady", "sunny", "swift", "tidy", "vivid", "warm", "witty", "zesty",
] as const;

export const NOUNS = [
  "badger", "beacon", "breeze", "canyon", "cedar", "comet", "coral", "delta", "falcon", "fern",
  "forest", "galaxy", "garden", "harbor", "heron", "island", "lagoon", "lantern", "maple", "meadow",
  "meteor", "orbit", "otter", "panda", "pebble", "pine", "planet", "prairie", "quartz", "raven",
  "river", "rocket", "sparrow", "summit", "thunder", "tiger", "valley", "willow", "wolf", "zephyr",
] as const;
