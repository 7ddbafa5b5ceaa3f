import { randomBytes, randomInt } from "node:crypto";
import type { ResourceHandler } from "../handler.js";
import { hostsInUse } from "../docker/public-host.js";
import { asSecret } from "../wire.js";
import { pickWords } from "./words.js";

/**
 * platform:random:Password and platform:random:Words: values made once per stack and kept in
 * its state, never regenerated on redeploy (@pulumi/random cannot be had here).
 */
export const passwordHandler: ResourceHandler = {
  inputKeys: ["length"],
  async create(_urn, inputs) {
    const length = Number(inputs.length ?? 32);
    // URL-safe alphabet: the password goes into connection-string URLs unescaped.
    const value = randomBytes(length * 2)
      .toString("base64url")
      .replace(/[-_]/g, "")
      .slice(0, length);
    return { id: randomBytes(8).toString("hex"), outs: { value: asSecret(value) } };
  },
  async read(_id, props) {
    return props;
  },
  async delete() {},
};

export const wordsHandler: ResourceHandler = {
  // hostPrefixes only steer the first pick: a new public service never changes the words
  // (and so the URLs) of a stack that has them.
  inputKeys: ["seedName", "hostPrefixes"],
  updatable: ["hostPrefixes"],
  async create(_urn, inputs) {
    const prefixes = (inputs.hostPrefixes as string[] | undefined) ?? [];
    const words = pickWords(prefixes, prefixes.length ? await hostsInUse() : new Set(), randomInt);
    return { id: randomBytes(8).toString("hex"), outs: { words } };
  },
  async update(_id, olds) {
    return { words: olds.words };
  },
  async read(_id, props) {
    return props;
  },
  async delete() {},
};
