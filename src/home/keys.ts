import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { homePaths } from "./layout.js";

/**
 * The machine's key for hashing build-time variables (an HMAC key, 32 random bytes, 0600 in
 * the platform home, made on first use): a tag, label or history line then says whether the
 * values changed, and nothing about them, even a short secret that could be guessed from a
 * plain hash.
 */
export function buildEnvKey(): Buffer {
  const file = join(homePaths.keysDir(), "build-env.key");
  try {
    const key = readFileSync(file);
    if (key.length >= 32) return key;
  } catch {
    // first use
  }
  mkdirSync(homePaths.keysDir(), { recursive: true, mode: 0o700 });
  writeFileAtomic.sync(file, randomBytes(32), { mode: 0o600 });
  return readFileSync(file);
}

/**
 * Extra CA certificates for package managers inside builds: PLATFORM_BUILD_CA_FILE, else
 * the first of NODE_EXTRA_CA_CERTS, SSL_CERT_FILE, PIP_CERT that exists, else the system
 * bundle (where a company or proxy CA is installed system-wide, it is in there).
 */
export function buildCaFile(): string | undefined {
  const { PLATFORM_BUILD_CA_FILE, NODE_EXTRA_CA_CERTS, SSL_CERT_FILE, PIP_CERT } = process.env;
  const candidates = [PLATFORM_BUILD_CA_FILE, NODE_EXTRA_CA_CERTS, SSL_CERT_FILE, PIP_CERT, "/etc/ssl/certs/ca-certificates.crt"];
  return candidates.find((f): f is string => !!f && existsSync(f));
}
