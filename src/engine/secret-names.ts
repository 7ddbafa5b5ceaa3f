/**
 * Which secrets an environment has, read without the Pulumi engine and without decrypting
 * anything: the names of the `secrets:NAME` keys in the stack's settings file (the values
 * there are encrypted with the login's passphrase) and when each was set. Light enough for
 * `platform validate`, which must not load Pulumi.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { SECRETS_REF } from "../config/rules-names.js";
import { homePaths } from "../home/layout.js";

/** Pulumi config namespace of the secrets: `${secrets.NAME}` reads `secrets:NAME`. */
export const SECRET_NAMESPACE = SECRETS_REF;
/** Plain stack setting: a JSON map of secret name to when it was last set (no values). */
export const SECRETS_SET_AT_KEY = "platform:secretsSetAt";

export function stackSettingsFile(project: string, env: string): string {
  return join(homePaths.workspaceDir(project), "stacks", `Pulumi.${env}.yaml`);
}

export function secretKey(name: string): string {
  return `${SECRET_NAMESPACE}:${name}`;
}

/** Secret name -> when it was set (ISO time; undefined when set outside the platform, e.g. pulumi config set). */
export function readSecretNames(project: string, env: string): Map<string, string | undefined> {
  let config: Record<string, unknown> = {};
  try {
    const doc = parse(readFileSync(stackSettingsFile(project, env), "utf8")) as { config?: Record<string, unknown> } | null;
    config = doc?.config ?? {};
  } catch {
    return new Map(); // no stack yet: nothing is set
  }
  let setAt: Record<string, string> = {};
  try {
    const raw = config[SECRETS_SET_AT_KEY];
    setAt = typeof raw === "string" ? (JSON.parse(raw) as Record<string, string>) : {};
  } catch {
    /* a hand-edited value: times unknown */
  }
  const out = new Map<string, string | undefined>();
  for (const key of Object.keys(config).sort()) {
    if (key.startsWith(`${SECRET_NAMESPACE}:`))
      out.set(key.slice(SECRET_NAMESPACE.length + 1), setAt[key.slice(SECRET_NAMESPACE.length + 1)]);
  }
  return out;
}

/** The referenced names that the environment does not have. */
export function missingSecrets(project: string, env: string, referenced: readonly string[]): string[] {
  const set = readSecretNames(project, env);
  return referenced.filter((n) => !set.has(n));
}
