import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** What `docker login` left in Docker's config.json. */
interface DockerConfig {
  auths?: Record<string, { auth?: string }>;
  /** Per registry host, the credential helper that holds its login (`docker-credential-<name>`). */
  credHelpers?: Record<string, string>;
  /** The helper that holds every login not named in credHelpers. */
  credsStore?: string;
}

/** A registry key as Docker writes it (`https://host/v1/`) reduced to its host. */
const hostOf = (key: string) => key.replace(/^https?:\/\//, "").replace(/\/.*$/, "");

/**
 * A credential helper's login for `host` (`docker-credential-<name> get`, the protocol of
 * docker/docker-credential-helpers), as a basic auth; undefined when it has none, fails, or holds
 * an identity token (a token for the registry's OAuth flow, which the kubelet cannot pull with).
 */
function fromHelper(name: string, host: string, env: NodeJS.ProcessEnv): string | undefined {
  let out: string;
  try {
    out = execFileSync(`docker-credential-${name}`, ["get"], {
      input: host,
      env,
      encoding: "utf8",
      timeout: 15_000,
      stdio: ["pipe", "pipe", "ignore"],
    });
  } catch {
    return undefined;
  }
  try {
    const c = JSON.parse(out) as { Username?: string; Secret?: string };
    if (!c.Username || !c.Secret || c.Username === "<token>") return undefined;
    return Buffer.from(`${c.Username}:${c.Secret}`).toString("base64");
  } catch {
    return undefined;
  }
}

/**
 * The pull credentials for HOST as a dockerconfigjson of that one host, from what `docker login`
 * left: the host's credential helper (credHelpers), else the default one (credsStore), else the
 * inline `auths` entry. Undefined when there is none (a registry that needs no login).
 */
export function dockerConfigFor(host: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const file = join(env.DOCKER_CONFIG || join(homedir(), ".docker"), "config.json");
  let config: DockerConfig;
  try {
    config = JSON.parse(readFileSync(file, "utf8")) as DockerConfig;
  } catch {
    return undefined;
  }
  const keyOf = (m: Record<string, unknown> | undefined) => Object.keys(m ?? {}).find((k) => hostOf(k) === host);
  const helperKey = keyOf(config.credHelpers);
  const helper = helperKey ? config.credHelpers?.[helperKey] : config.credsStore;
  const auth = (helper ? fromHelper(helper, host, env) : undefined) ?? config.auths?.[keyOf(config.auths) ?? ""]?.auth;
  return auth ? JSON.stringify({ auths: { [host]: { auth } } }) : undefined;
}
