import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { ExitCode, VisibleError } from "../errors.js";
import { homePaths, platformHome } from "../home/layout.js";

/**
 * What `platform login` keeps: the Pulumi backend holding the state, and the passphrase that
 * encrypts its secrets. A file readable by its owner only; in CI, PLATFORM_BACKEND_URL and
 * PLATFORM_PASSPHRASE stand in for it.
 */
export interface Credentials {
  backendUrl: string;
  passphrase: string;
  user: string;
  createdAt: string;
  /** Where the credentials came from: the file, or the environment. */
  source: "file" | "env";
}

export function credentialsFile(): string {
  return homePaths.credentials();
}

export function defaultBackendUrl(): string {
  return `file://${homePaths.stateDir()}`;
}

export function readCredentials(): Credentials | undefined {
  const { PLATFORM_BACKEND_URL: url, PLATFORM_PASSPHRASE: pass } = process.env;
  if (url && pass) return { backendUrl: url, passphrase: pass, user: userInfo().username, createdAt: "", source: "env" };
  if (!existsSync(credentialsFile())) return undefined;
  const c = JSON.parse(readFileSync(credentialsFile(), "utf8")) as Credentials;
  return { ...c, source: "file" };
}

export function requireCredentials(): Credentials {
  const c = readCredentials();
  if (!c) {
    throw new VisibleError("not logged in: run `platform login` first (in CI, set PLATFORM_BACKEND_URL and PLATFORM_PASSPHRASE)", {
      exitCode: ExitCode.notLoggedIn,
    });
  }
  return c;
}

/** Logs in; a second login keeps the passphrase, so existing stacks stay readable. */
export function writeCredentials(backendUrl: string | undefined, passphrase?: string): Credentials {
  const previous = existsSync(credentialsFile()) ? (JSON.parse(readFileSync(credentialsFile(), "utf8")) as Credentials) : undefined;
  const url = backendUrl ?? previous?.backendUrl ?? defaultBackendUrl();
  if (url.startsWith("file://")) mkdirSync(url.slice("file://".length), { recursive: true, mode: 0o700 });
  const c: Credentials = {
    backendUrl: url,
    passphrase: passphrase ?? previous?.passphrase ?? randomBytes(24).toString("base64url"),
    user: userInfo().username,
    createdAt: new Date().toISOString(),
    source: "file",
  };
  mkdirSync(platformHome(), { recursive: true, mode: 0o700 });
  const { source: _source, ...stored } = c;
  writeFileSync(credentialsFile(), `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
  chmodSync(credentialsFile(), 0o600);
  return c;
}

export function removeCredentials(): boolean {
  if (!existsSync(credentialsFile())) return false;
  rmSync(credentialsFile());
  return true;
}
