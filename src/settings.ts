import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import writeFileAtomic from "write-file-atomic";
import { homedir } from "node:os";
import { join } from "node:path";
import type { BaseImageSet } from "./plan/types.js";

/**
 * Machine settings: where the platform keeps its things, which base images and toolchain
 * the set-up provided, and which extra CA certificates builds need. Read by the program,
 * the engine and the CLI alike, so `pulumi up` and `platform deploy` see the same.
 */
export function platformHome(): string {
  return process.env.PLATFORM_HOME || join(homedir(), ".platform");
}

/** Public images by default; the set-up writes images.json when it built local ones. */
export const PUBLIC_IMAGES: BaseImageSet = { python: "python:3.11-slim", node: "node:22-slim", postgres: "postgres:17", caddy: "caddy:2" };

function readJson<T>(file: string): Partial<T> {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Partial<T>;
  } catch {
    return {};
  }
}

/** The OpenTelemetry layer images the set-up built (see recipes/opentelemetry.ts). */
export function otelLayersFile(): string {
  return join(platformHome(), "otel-layers.json");
}

/** PLATFORM_<ROLE>_IMAGE (e.g. PLATFORM_POSTGRES_IMAGE) puts a team's own image in one role. */
export function baseImages(): BaseImageSet {
  const images = { ...PUBLIC_IMAGES, ...readJson<BaseImageSet>(join(platformHome(), "images.json")) };
  for (const role of Object.keys(PUBLIC_IMAGES) as ("python" | "node" | "postgres" | "caddy")[]) {
    const override = process.env[`PLATFORM_${role.toUpperCase()}_IMAGE`];
    if (override) images[role] = override;
  }
  // PLATFORM_OTEL_LAYERS (comma-separated tags) stands in for the file, as the roles' variables do.
  const layers = process.env.PLATFORM_OTEL_LAYERS !== undefined ? process.env.PLATFORM_OTEL_LAYERS.split(",").filter(Boolean) : readJson<{ tags: string[] }>(otelLayersFile()).tags;
  return Array.isArray(layers) ? { ...images, otelLayers: layers } : images;
}

export interface Toolchain {
  /** Directory with `pulumi` and `pulumi-language-nodejs`. */
  pulumiBin?: string;
  /** Directory of the node binary the platform runs on. */
  nodeBin?: string;
  /** A BuildKit-capable docker client. */
  dockerCli?: string;
}

export function toolchain(): Toolchain {
  return readJson<Toolchain>(join(platformHome(), "toolchain.json"));
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

export function logDir(project: string, env: string): string {
  return join(platformHome(), "logs", project, env);
}

/**
 * The machine's key for hashing build-time variables (an HMAC key, 32 random bytes, 0600 in
 * the platform home, made on first use): a tag, label or history line then says whether the
 * values changed, and nothing about them, even a short secret that could be guessed from a
 * plain hash.
 */
export function buildEnvKey(): Buffer {
  const file = join(platformHome(), "keys", "build-env.key");
  try {
    const key = readFileSync(file);
    if (key.length >= 32) return key;
  } catch {
    // first use
  }
  mkdirSync(join(platformHome(), "keys"), { recursive: true, mode: 0o700 });
  writeFileAtomic.sync(file, randomBytes(32), { mode: 0o600 });
  return readFileSync(file);
}

/**
 * The telemetry store's directory: the platform's OTLP receiver writes `telemetry.sqlite`
 * here (bind-mounted into its container), and Studio opens it with openTelemetryStore or
 * TelemetryStore.openReadOnly. PLATFORM_TELEMETRY_DIR moves it.
 */
export function telemetryDir(): string {
  return process.env.PLATFORM_TELEMETRY_DIR || join(platformHome(), "telemetry");
}
