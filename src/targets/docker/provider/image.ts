import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { docker, unlessGone } from "./docker-client.js";
import type { ResourceHandler } from "./handler.js";

/** Inputs of platform:docker:Image. `hash` identifies the build inputs; `tag` embeds it. */
export interface ImageInputs {
  tag: string;
  context: string;
  /** The Dockerfile's text (generated recipes, or the user's file read by the program). */
  dockerfile: string;
  dockerignore?: string;
  buildArgs?: Record<string, string>;
  hash: string;
  /** Extra CA certificates for package managers, passed as the BuildKit secret `ca` (never a layer). */
  caFile?: string;
  logDir: string;
  label: string;
}

const TAIL_LINES = 30;

function tail(file: string): string {
  return readFileSync(file, "utf8").trimEnd().split("\n").slice(-TAIL_LINES).join("\n");
}

async function existingImageId(tag: string, hash: string): Promise<string | undefined> {
  const info = await unlessGone(() => docker().getImage(tag).inspect());
  return info?.Config?.Labels?.["platform.inputs-hash"] === hash ? info.Id : undefined;
}

/** Runs a BuildKit build with the first client that can (Debian's docker 20.10 here). */
function runBuild(i: ImageInputs, logFile: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "platform-build-"));
  const dockerfile = join(dir, "Dockerfile");
  writeFileSync(dockerfile, i.dockerfile);
  // BuildKit reads <Dockerfile>.dockerignore beside a Dockerfile given with -f.
  if (i.dockerignore !== undefined) writeFileSync(`${dockerfile}.dockerignore`, i.dockerignore);
  const args = ["build", "--progress=plain", "-t", i.tag, "--label", `platform.inputs-hash=${i.hash}`, "-f", dockerfile];
  for (const [k, v] of Object.entries(i.buildArgs ?? {})) args.push("--build-arg", `${k}=${v}`);
  if (i.caFile) args.push("--secret", `id=ca,src=${i.caFile}`);
  args.push(i.context);
  const cli = process.env.PLATFORM_DOCKER_CLI || "docker";
  const log = createWriteStream(logFile);
  return new Promise<void>((resolve, reject) => {
    const child = spawn(cli, args, { env: { ...process.env, DOCKER_BUILDKIT: "1" }, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    child.on("error", (e) => reject(new Error(`could not run ${cli}: ${e.message}`)));
    child.on("close", (code) => {
      log.end(() => {
        rmSync(dir, { recursive: true, force: true });
        if (code === 0) resolve();
        else reject(new Error(`build of ${i.label} failed (exit ${code})\n--- last ${TAIL_LINES} lines ---\n${tail(logFile)}\nfull log: ${logFile}`));
      });
    });
  });
}

export const imageHandler: ResourceHandler = {
  // caFile and logDir are machine-local settings, not build inputs: no rebuild when they move.
  inputKeys: ["tag", "hash"],

  async create(_urn, inputs) {
    const i = inputs as unknown as ImageInputs;
    let imageId = await existingImageId(i.tag, i.hash);
    let logFile = "";
    if (!imageId) {
      mkdirSync(i.logDir, { recursive: true });
      logFile = join(i.logDir, `build-${i.label}-${Date.now()}.log`);
      await runBuild(i, logFile);
      imageId = await existingImageId(i.tag, i.hash);
      if (!imageId) throw new Error(`build of ${i.label} finished but image ${i.tag} is missing`);
    }
    return { id: i.tag, outs: { imageId, logFile, reused: logFile === "" } };
  },

  async read(id) {
    const info = await unlessGone(() => docker().getImage(id).inspect());
    return info && { imageId: info.Id };
  },

  async delete(id) {
    // A replacement that came back to the same inputs (a failed deploy, then the old code
    // again) has the same tag as the image being deleted: while a container made from this
    // tag exists, the tag stays. (Other tags of the same image, other stacks', do not count.)
    const users = await docker().listContainers({ all: true, filters: { ancestor: [id] } }).catch(() => []);
    if (users.some((c) => c.Image === id)) return;
    try {
      await docker().getImage(id).remove({ noprune: false });
    } catch (e) {
      // In use by a container we do not manage any more, or already gone: leave it.
      const code = (e as { statusCode?: number }).statusCode;
      if (code !== 404 && code !== 409) throw e;
    }
  },
};
