// The bench's own Docker objects, and only those: the engine is shared with other work.
// - Cold builds: each cold run builds from base images "salted" for that run (the set-up's
//   base image plus one label: a new image id over the same layers), so no BuildKit cache
//   entry anyone made before can be hit, the bench's or anyone else's, and nobody else's
//   cache has to be removed to make the run cold.
// - Clean-up: the build cache records that appeared during a run (new since a snapshot taken
//   just before it, not in use) are pruned by id, then the salted bases and the run's images
//   go. A record another build made in the same seconds could be among them: that costs
//   that build a cache hit, never an image.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Docker from "dockerode";
import { runOk } from "./measure.mjs";

export const docker = new Docker();
export const DOCKER_CLI = process.env.PLATFORM_DOCKER_CLI || "/usr/bin/docker";
const buildEnv = { ...process.env, DOCKER_BUILDKIT: "1" };

/** A base image with one more label: same layers, new id, so builds from it share no cache. */
export async function saltedBase(base, repo, salt) {
  // The base's own tag first: recipes read the runtime's version from it (node:22-...).
  const tag = `${repo}:${base.split(":").pop()}-${salt}`;
  const dir = join("/tmp", `bench-compare-salt-${salt}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "Dockerfile"), `FROM ${base}\nLABEL platform.bench.salt=${salt}\n`);
  await runOk(DOCKER_CLI, ["build", "-q", "-t", tag, dir], { env: buildEnv });
  return tag;
}

export async function cacheIds() {
  const df = await docker.df();
  return new Set((df.BuildCache ?? []).map((r) => r.ID));
}

/**
 * Prunes the build cache records that are not in `before` and were created while one of the
 * bench's own builds ran (windows: [start, end] in ms). One regex: moby takes one id filter.
 */
export async function pruneNewCache(before, windows) {
  const df = await docker.df();
  const during = (r) => windows.some(([a, b]) => Date.parse(r.CreatedAt) >= a - 1000 && Date.parse(r.CreatedAt) <= b + 1000);
  const ids = (df.BuildCache ?? []).filter((r) => !before.has(r.ID) && !r.InUse && during(r)).map((r) => r.ID);
  if (ids.length === 0) return 0;
  const filters = JSON.stringify({ id: [`^(${ids.join("|")})$`] });
  await docker.pruneBuilder({ filters, all: true }).catch(() => undefined);
  return ids.length;
}

/** Removes images by reference pattern (e.g. "bench-compose-a*"), never anything else. */
export async function removeImages(...references) {
  for (const reference of references) {
    const images = await docker.listImages({ filters: JSON.stringify({ reference: [reference] }) });
    for (const img of images) {
      for (const tag of img.RepoTags ?? []) await docker.getImage(tag).remove({ noprune: false }).catch(() => undefined);
      await docker.getImage(img.Id).remove({ force: true }).catch(() => undefined);
    }
  }
}

/** One image build with Debian's docker client and the engine's BuildKit, as the platform does. */
export function buildImage({ tag, dockerfile, context, buildArgs = {}, caFile }) {
  const args = ["build", "--progress=plain", "-t", tag, "-f", dockerfile];
  for (const [k, v] of Object.entries(buildArgs)) args.push("--build-arg", `${k}=${v}`);
  if (caFile) args.push("--secret", `id=ca,src=${caFile}`);
  args.push(context);
  return runOk(DOCKER_CLI, args, { env: buildEnv });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts a container from an image, with the platform's limits, and waits until `probe`
 * (a command run inside it) exits 0. Returns the milliseconds from create to healthy.
 */
export async function startUntilHealthy({ image, name, env = [], probe, timeoutMs = 120_000 }) {
  const t0 = Date.now();
  const c = await docker.createContainer({ Image: image, name, Env: env, HostConfig: { NanoCpus: 5e8, Memory: 512 * 1024 * 1024 } });
  try {
    await c.start();
    for (let delay = 100; Date.now() - t0 < timeoutMs; delay = Math.min(delay * 1.5, 1000)) {
      const exec = await c.exec({ Cmd: probe, AttachStdout: false, AttachStderr: false });
      await exec.start({ Detach: true });
      for (let i = 0; i < 100; i++) {
        const info = await exec.inspect();
        if (!info.Running) { if (info.ExitCode === 0) return Date.now() - t0; break; }
        await sleep(20);
      }
      await sleep(delay);
    }
    throw new Error(`${name} was not healthy within ${timeoutMs / 1000}s`);
  } finally {
    await c.remove({ force: true }).catch(() => undefined);
  }
}

/** Process ids of a running container's processes (to sample their memory), or []. */
export async function containerPids(name) {
  try {
    const top = await docker.getContainer(name).top({ ps_args: "-o pid" });
    return top.Processes.map((p) => Number(p[0])).filter(Number.isFinite);
  } catch {
    return [];
  }
}
