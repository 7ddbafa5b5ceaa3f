import { randomBytes, randomInt } from "node:crypto";
import type { ResourceHandler } from "./handler.js";
import { asSecret } from "./wire.js";
import { ADJECTIVES, NOUNS } from "./words.js";

/**
 * platform:random:Password and platform:random:Words: values made once per stack and kept in
 * its state, never regenerated on redeploy (@pulumi/random cannot be had here).
 */
export const passwordHandler: ResourceHandler = {
  inputKeys: ["length"],
  async create(_urn, inputs) {
    const length = Number(inputs.length ?? 32);
    // URL-safe alphabet: the password goes into connection-string URLs unescaped.
    const value = randomBytes(length * 2).toString("base64url").replace(/[-_]/g, "").slice(0, length);
    return { id: randomBytes(8).toString("hex"), outs: { value: asSecret(value) } };
  },
  async read(_id, props) { return props; },
  async delete() {},
};

export const wordsHandler: ResourceHandler = {
  inputKeys: ["seedName"],
  async create() {
    const words = `${ADJECTIVES[randomInt(ADJECTIVES.length)]}-${NOUNS[randomInt(NOUNS.length)]}`;
    return { id: randomBytes(8).toString("hex"), outs: { words } };
  },
  async read(_id, props) { return props; },
  async delete() {},
};
