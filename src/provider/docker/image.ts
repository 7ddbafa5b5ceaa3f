import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { docker, unlessGone } from "../../docker-client.js";
import { parseDockerfileArgs } from "../../plan/dockerfile-args.js";
import { BUILD_ENV_HASH_ARG, BUILD_ENV_SECRET } from "../../plan/recipes/dockerfile-parts.js";
import type { ResourceHandler } from "../handler.js";
import { diagnoseBuildLog } from "./build-diagnoses.js";
import { baseImages } from "../../home/images.js";
import { ensureBaseImages, parseFromImages } from "./base-images.js";
import type { ImageInputs } from "../contract/docker-inputs.js";

export type { ImageInputs };

const TAIL_LINES = 30;

function tail(file: string): string {
  return readFileSync(file, "utf8").trimEnd().split("\n").slice(-TAIL_LINES).join("\n");
}

async function existingImageId(tag: string, hash: string): Promise<string | undefined> {
  const info = await unlessGone(() => docker().getImage(tag).inspect());
  return info?.Config?.Labels?.["platform.inputs-hash"] === hash ? info.Id : undefined;
}

/** One word for sh in single quotes: any value, newlines included, is read back exactly. */
function toShellValue(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The `platform-env` secret's text: `NAME='value'` lines, for `set -a; . /run/secrets/platform-env`. */
export function toEnvFile(values: Readonly<Record<string, string>>): string {
  return Object.entries(values)
    .map(([k, v]) => `${k}=${toShellValue(v)}\n`)
    .join("");
}

/** Names that would change how the docker client itself runs if set in its environment. */
const CLIENT_VARIABLES = /^(PATH|HOME|LD_\w*|DOCKER_\w*|BUILDKIT_\w*|PLATFORM_\w*)$/;

/**
 * The service's variables that go in as build arguments: only those the Dockerfile declares.
 * Given as `--build-arg NAME` with the value in the client's environment, never in its
 * arguments (which any process on the machine can read).
 */
export function pickBuildArgVariables(dockerfile: string, values: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of parseDockerfileArgs(dockerfile)) {
    if (Object.hasOwn(values, name) && !CLIENT_VARIABLES.test(name)) out[name] = values[name] as string;
  }
  return out;
}

/**
 * Runs a BuildKit build with the first client that can (Debian's docker 20.10 here). The
 * variables go to a 0600 file in a private temp directory, removed when the build ends.
 */
function runBuild(i: ImageInputs, logFile: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "platform-build-"));
  const dockerfile = join(dir, "Dockerfile");
  writeFileSync(dockerfile, i.dockerfile);
  // BuildKit reads <Dockerfile>.dockerignore beside a Dockerfile given with -f.
  if (i.dockerignore !== undefined) writeFileSync(`${dockerfile}.dockerignore`, i.dockerignore);
  const envFile = join(dir, "platform-env");
  writeFileSync(envFile, toEnvFile(i.buildEnv ?? {}), { mode: 0o600 });
  const args = ["build", "--progress=plain", "-t", i.tag, "--label", `platform.inputs-hash=${i.hash}`, "-f", dockerfile];
  if (i.target) args.push("--target", i.target);
  for (const [k, v] of Object.entries(i.buildArgs ?? {})) args.push("--build-arg", `${k}=${v}`);
  if (i.buildEnvHash) args.push("--build-arg", `${BUILD_ENV_HASH_ARG}=${i.buildEnvHash}`);
  const argValues = pickBuildArgVariables(i.dockerfile, i.buildEnv ?? {});
  for (const k of Object.keys(argValues)) args.push("--build-arg", k);
  args.push("--secret", `id=${BUILD_ENV_SECRET},src=${envFile}`);
  if (i.caFile) args.push("--secret", `id=ca,src=${i.caFile}`);
  args.push(i.context);
  const cli = process.env.PLATFORM_DOCKER_CLI || "docker";
  const log = createWriteStream(logFile, { mode: 0o600 });
  const cleanUp = () => rmSync(dir, { recursive: true, force: true });
  return new Promise<void>((resolve, reject) => {
    const child = spawn(cli, args, { env: { ...process.env, ...argValues, DOCKER_BUILDKIT: "1" }, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    child.on("error", (e) => {
      cleanUp();
      reject(new Error(`could not run ${cli}: ${e.message}`));
    });
    child.on("close", (code) => {
      log.end(() => {
        cleanUp();
        if (code === 0) return resolve();
        const text = tail(logFile);
        const diagnosis = diagnoseBuildLog(readFileSync(logFile, "utf8"));
        reject(
          new Error(
            `build of ${i.label} failed (exit ${code})\n${diagnosis ? `diagnosis: ${diagnosis}\n` : ""}--- last ${TAIL_LINES} lines ---\n${text}\nfull log: ${logFile}`,
          ),
        );
      });
    });
  });
}

/** Builds the image (its base images first, when missing); the build's log file. */
async function build(i: ImageInputs): Promise<string> {
  mkdirSync(i.logDir, { recursive: true, mode: 0o700 });
  const logFile = join(i.logDir, `build-${i.label}-${Date.now()}.log`);
  // A Python or Node version built on first need (platform deploy did it already; pulumi up has not).
  await ensureBaseImages(parseFromImages(i.dockerfile), baseImages());
  await runBuild(i, logFile);
  return logFile;
}

/** What a build started before the engine came to: its log file, or its error. */
interface EarlyBuild {
  readonly hash: string;
  readonly logFile?: string;
  readonly error?: Error;
}

/** Builds started before the engine (prebuildImage), by tag (never a rejection). */
const early = new Map<string, Promise<EarlyBuild>>();

/**
 * Starts a build before the engine asks for it (engine/prebuild.ts), unless the image exists.
 * The provider's create in this process waits for it, and when the program asks for exactly
 * this tag and inputs hash, takes its image, or reports its error (the same build with the
 * same inputs: it is not run twice).
 */
export function prebuildImage(i: ImageInputs): void {
  const done = existingImageId(i.tag, i.hash).then((id) => (id ? undefined : build(i)));
  early.set(
    i.tag,
    done.then(
      (logFile) => ({ hash: i.hash, logFile }),
      (error: Error) => ({ hash: i.hash, error }),
    ),
  );
}

/** Waits for the early builds that nothing took over, and forgets them (at the deploy's end). */
export async function settlePrebuilds(): Promise<void> {
  const left = [...early.values()];
  early.clear();
  await Promise.allSettled(left);
}

export const imageHandler: ResourceHandler = {
  // caFile and logDir are machine-local settings, not build inputs: no rebuild when they move.
  inputKeys: ["tag", "hash"],

  async create(_urn, inputs) {
    const i = inputs as unknown as ImageInputs;
    const started = early.get(i.tag);
    early.delete(i.tag);
    const before = await started;
    if (before?.error && before.hash === i.hash && !i.pinned) throw before.error;
    let imageId = await existingImageId(i.tag, i.hash);
    // Built before the engine asked (prebuildImage), for exactly these inputs: the state says so.
    const prebuilt = Boolean(imageId && before?.logFile && before.hash === i.hash);
    let logFile = prebuilt ? (before?.logFile as string) : "";
    if (!imageId && i.pinned) {
      throw new Error(
        `image ${i.tag} of ${i.label} is gone, so that deployment cannot be redeployed without building; platform deployments shows which ones can be rolled back to`,
      );
    }
    if (!imageId) {
      logFile = await build(i);
      imageId = await existingImageId(i.tag, i.hash);
      if (!imageId) throw new Error(`build of ${i.label} finished but image ${i.tag} is missing`);
    }
    return { id: i.tag, outs: { imageId, logFile, reused: logFile === "", prebuilt } };
  },

  async read(id) {
    const info = await unlessGone(() => docker().getImage(id).inspect());
    return info && { imageId: info.Id };
  },

  // Images outlive their resource: the last deployments' images are what a rollback runs
  // without building. The engine prunes the older ones after each deployment.
  async delete() {},
};
