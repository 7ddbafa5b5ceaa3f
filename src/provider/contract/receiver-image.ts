import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The platform's OTLP receiver as a container image: the compiled src/telemetry (this
 * install's dist/telemetry) and protobufjs, on the platform's Node base image (node:sqlite
 * needs Node ≥ 22.5; platform-local/node:22 and node:22-slim have it). Built offline from what
 * the install has, tagged and labelled by a hash of its files and base, so a changed receiver
 * is rebuilt once and an unchanged one never.
 */

export const TELEMETRY_CONTAINER = "platform-telemetry";
export const TELEMETRY_PORT = 4318;
export const TELEMETRY_REPOSITORY = "platform-local/telemetry";
export const TELEMETRY_HASH_LABEL = "platform.recipe-hash";
/** Where the store directory of the host is mounted in the container. */
export const TELEMETRY_DATA = "/data";

/** The OTLP/HTTP base URL every service's OTEL_EXPORTER_OTLP_ENDPOINT gets. */
export const TELEMETRY_ENDPOINT = `http://${TELEMETRY_CONTAINER}:${TELEMETRY_PORT}`;

/** npm packages the receiver imports at run time (protobufjs and its one dependency). */
const RUNTIME_PACKAGES = ["protobufjs", "long"];

export interface ReceiverContext {
  /** Path in the build context -> absolute source file. */
  readonly files: ReadonlyMap<string, string>;
  readonly dockerfile: string;
  readonly hash: string;
  readonly tag: string;
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listFiles(p));
    else out.push(p);
  }
  return out;
}

/** The install's root: this file is <root>/dist/provider/contract/ (or src/ when run from source). */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

function packageDir(pkg: string): string {
  const dir = join(ROOT, "node_modules", pkg);
  if (!existsSync(join(dir, "package.json")))
    throw new Error(`the telemetry receiver needs the npm package ${pkg}, which is not in ${join(ROOT, "node_modules")}: run npm ci`);
  return dir;
}

export function buildReceiverDockerfile(baseImage: string): string {
  return [
    `FROM ${baseImage}`,
    'LABEL org.opencontainers.image.description="The platform\'s OTLP/HTTP receiver and telemetry store"',
    "COPY app /app",
    "WORKDIR /app",
    `ENV TELEMETRY_DIR=${TELEMETRY_DATA} PORT=${TELEMETRY_PORT} NODE_ENV=production`,
    `EXPOSE ${TELEMETRY_PORT}`,
    // node:sqlite is still marked experimental on Node 22: one warning per start is noise in its log.
    'CMD ["node", "--disable-warning=ExperimentalWarning", "telemetry/receiver-main.js"]',
    "",
  ].join("\n");
}

/** The build context of the receiver image for this install, and its identity. */
export function receiverContext(baseImage: string): ReceiverContext {
  const files = new Map<string, string>();
  // Always the compiled files: the receiver runs on plain Node, also when the program runs from source.
  const dist = join(ROOT, "dist", "telemetry");
  if (!existsSync(join(dist, "receiver-main.js")))
    throw new Error(`the telemetry receiver is not built (${dist}/receiver-main.js is missing): run npm run build`);
  for (const f of listFiles(dist).filter((f) => f.endsWith(".js"))) files.set(`app/telemetry/${relative(dist, f)}`, f);
  for (const pkg of RUNTIME_PACKAGES) {
    const root = packageDir(pkg);
    for (const f of listFiles(root)) files.set(`app/node_modules/${pkg}/${relative(root, f)}`, f);
  }
  const dockerfile = buildReceiverDockerfile(baseImage);
  const h = createHash("sha256").update(dockerfile);
  h.update('{"type":"module"}');
  for (const [rel, abs] of [...files].sort(([a], [b]) => a.localeCompare(b))) h.update(`\n${rel}\n`).update(readFileSync(abs));
  const hash = h.digest("hex");
  return { files, dockerfile, hash, tag: `${TELEMETRY_REPOSITORY}:${hash.slice(0, 12)}` };
}
