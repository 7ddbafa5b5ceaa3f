import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import Docker from "dockerode";
import { docker, unlessGone } from "../../docker-client.js";
import { VisibleError } from "../../errors.js";
import type { BaseImageSet } from "../../plan/types.js";

/**
 * Python, Node and PostgreSQL versions beyond the set-up's defaults, built on first need. The plan names
 * the image of the version it chose (images.json's catalogue: "3.14" ->
 * platform-local/python:3.14-<recipe hash>); before anything is built from it, this makes sure
 * the engine has it, by running the set-up's own recipe (scripts/setup/base-image.sh: debootstrap
 * of the Debian suite, then the image), which holds a lock so that concurrent deploys build it
 * once. `platform deploy` calls it with progress lines before the engine starts; the Image
 * resource calls it too (quietly), so that a plain `pulumi up` gets the same.
 */

const LANGUAGE: Record<string, string> = { python: "Python", node: "Node", postgres: "PostgreSQL" };

const SCRIPT = fileURLToPath(new URL("../../../scripts/setup/base-image.sh", import.meta.url));

/** tag -> "python@3.14" / "node@24" / "postgres@17", for the catalogues' images. */
export function toBaseImageSpecs(images: Pick<BaseImageSet, "pythonVersions" | "nodeVersions" | "postgresVersions">): Map<string, string> {
  const specs = new Map<string, string>();
  for (const [version, tag] of Object.entries(images.postgresVersions ?? {})) specs.set(tag, `postgres@${version}`);
  for (const [version, tag] of Object.entries(images.pythonVersions ?? {})) specs.set(tag, `python@${version}`);
  for (const [version, tag] of Object.entries(images.nodeVersions ?? {})) specs.set(tag, `node@${version}`);
  return specs;
}

/** The images a Dockerfile starts from (FROM lines, not its own stages). */
export function parseFromImages(dockerfile: string): string[] {
  const stages = new Set<string>();
  const images: string[] = [];
  for (const m of dockerfile.matchAll(/^\s*FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?/gim)) {
    const image = m[1] as string;
    if (!stages.has(image.toLowerCase())) images.push(image);
    if (m[2]) stages.add(m[2].toLowerCase());
  }
  return images;
}

export interface EnsureOptions {
  /** One line per step (an image building, built with its time and what it pins). */
  readonly progress?: (line: string) => void;
  /**
   * Build on this machine's own engine (PLATFORM_LOCAL_DOCKER_SOCKET, else /var/run/docker.sock)
   * whatever DOCKER_HOST says: a deploy to a server over SSH then copies the images there.
   * @default false
   */
  readonly local?: boolean;
}

/** Builds of this process under way, by engine and spec: two services on one version wait for one build. */
const running = new Map<string, Promise<void>>();

function runScript(spec: string, env: NodeJS.ProcessEnv, progress: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", [SCRIPT, spec], { env, stdio: ["ignore", "pipe", "pipe"] });
    let pending = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => {
      pending += d.toString();
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) if (line.trim()) progress(line.trim());
    });
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", (e) => reject(new Error(`could not run bash ${SCRIPT}: ${e.message}`)));
    child.on("close", (code) => {
      if (pending.trim()) progress(pending.trim());
      if (code === 0) return resolve();
      const said = err.replace(/^\s*✖\s*/m, "").trim();
      reject(
        new VisibleError(`building the base image ${spec} failed (exit ${code})`, {
          details: [
            ...(said ? said.split("\n").slice(-40) : []),
            `  hint: run bash scripts/setup/base-image.sh ${spec} to try again and see every line; its log is under $PLATFORM_HOME/logs`,
          ],
        }),
      );
    });
  });
}

/** The catalogue images among `tags` that the engine lacks; undefined when the engine cannot be asked. */
export async function findMissingBaseImages(tags: readonly string[], images: BaseImageSet): Promise<string[] | undefined> {
  const specs = toBaseImageSpecs(images);
  const wanted = [...new Set(tags)].filter((t) => specs.has(t));
  try {
    const found = await Promise.all(wanted.map((t) => unlessGone(() => docker().getImage(t).inspect())));
    return wanted.filter((_, i) => !found[i]);
  } catch {
    return undefined;
  }
}

/**
 * Makes sure the engine has each of `tags` that is a catalogue image, building the missing ones;
 * other tags (the set-up's, public ones, a team's own) are left alone. Returns the specs built.
 */
export async function ensureBaseImages(tags: readonly string[], images: BaseImageSet, opts: EnsureOptions = {}): Promise<string[]> {
  const specs = toBaseImageSpecs(images);
  const wanted = [...new Set(tags)].filter((t) => specs.has(t));
  if (wanted.length === 0) return [];
  const socket = process.env.PLATFORM_LOCAL_DOCKER_SOCKET ?? "/var/run/docker.sock";
  const engine = opts.local ? new Docker({ socketPath: socket }) : docker();
  const env = opts.local ? { ...process.env, DOCKER_HOST: `unix://${socket}` } : process.env;
  const progress = opts.progress ?? (() => {});
  const built: string[] = [];
  for (const tag of wanted) {
    if (await unlessGone(() => engine.getImage(tag).inspect())) continue;
    const spec = specs.get(tag) as string;
    const key = `${env.DOCKER_HOST ?? ""} ${spec}`;
    let build = running.get(key);
    if (!build) {
      const [name, version] = spec.split("@");
      progress(
        `${LANGUAGE[name as string] ?? name} ${version} is not built on this machine yet: building ${tag} (first need; about a minute or two, once)`,
      );
      build = runScript(spec, env, progress).finally(() => running.delete(key));
      running.set(key, build);
      built.push(spec);
    }
    await build;
    if (!(await unlessGone(() => engine.getImage(tag).inspect()))) {
      throw new VisibleError(`${SCRIPT} ${spec} finished, but the engine has no ${tag}`, {
        details: [
          "  hint: images.json named a tag older than the recipes (they changed since npm run setup); it names the current ones now: deploy again",
        ],
      });
    }
  }
  return built;
}
