// The bench's own Docker objects, and only those: the engine is shared with other work.
// - Cold builds: each cold run builds from base images "salted" for that run (the set-up's
//   base image plus one tiny layer, a file naming the run), so no BuildKit cache entry anyone
//   made before can be hit, the bench's or anyone else's, and nobody else's cache has to be
//   removed to make the run cold. (A label alone is not enough: BuildKit keys the cache on
//   the base's layers, and every build was cached.)
// - The engine's build cache is never pruned as a whole, nor by age: it is shared. A bench
//   removes only its own build records (pruneSaltedRecords): the records that descend from
//   its salt step (BuildKit's records name their parent), one `docker builder prune --filter
//   id=<full id>` each, leaves first, and it checks afterwards that no other record went with
//   them (an earlier note here saw a prune by id take unrelated records along: the check
//   counts any such record, and the bench prints it). Records with no parent (the build
//   contexts, "local source") are not attributable and stay, a few KiB each.
//   The salt step must be in the build itself (bench/scale puts it in the Dockerfile): a build
//   FROM a salted base image starts from a fresh "from local" record whose parent is the
//   base's layer, not the salt step, so its records cannot be told from anyone else's
//   (measured); bench/compare, which salts its bases, therefore still prunes nothing.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Docker from "dockerode";
import { runOk } from "./measure.mjs";

export const docker = new Docker();
export const DOCKER_CLI = process.env.PLATFORM_DOCKER_CLI || "/usr/bin/docker";
const buildEnv = { ...process.env, DOCKER_BUILDKIT: "1" };

/** A base image with one more small layer, so builds from it share no cache with any other. */
export async function saltedBase(base, repo, salt) {
  // The base's own tag first: recipes read the runtime's version from it (node:22-...).
  const tag = `${repo}:${base.split(":").pop()}-${salt}`;
  const dir = mkdtempSync(join(tmpdir(), "bench-compare-salt-"));
  try {
    // The file names the bench run too (its repo): a salt alone ("c0p") is the same in every
    // run, so a later run's salted base was the same image, and the earlier run's cache hit.
    writeFileSync(join(dir, "Dockerfile"), `FROM ${base}\nRUN echo ${repo}:${salt} > /.platform-bench-salt\n`);
    await runOk(DOCKER_CLI, ["build", "-q", "-t", tag, dir], { env: buildEnv });
    return tag;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Removes images by reference pattern (e.g. "bench-compose-a*"), never anything else. */
export async function removeImages(...references) {
  for (const reference of references) {
    const images = await docker.listImages({ filters: JSON.stringify({ reference: [reference] }) });
    for (const img of images) {
      for (const tag of img.RepoTags ?? [])
        await docker
          .getImage(tag)
          .remove({ noprune: false })
          .catch(() => undefined);
      await docker
        .getImage(img.Id)
        .remove({ force: true })
        .catch(() => undefined);
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
        if (!info.Running) {
          if (info.ExitCode === 0) return Date.now() - t0;
          break;
        }
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

/** The engine's build cache records: { ID, Parent, Description, Size, InUse, ... }. */
export async function buildRecords() {
  return (await docker.df()).BuildCache ?? [];
}

/**
 * The records that descend from a salt step `RUN echo <marker>... > /.platform-bench-salt`,
 * the step's own record included: only the bench's builds make them.
 */
export function saltedRecords(records, marker) {
  const children = new Map();
  for (const r of records) if (r.Parent) children.set(r.Parent, [...(children.get(r.Parent) ?? []), r]);
  const roots = records.filter((r) => r.Description?.includes(`echo ${marker}`) && r.Description.includes(".platform-bench-salt"));
  const own = [];
  for (const queue = [...roots]; queue.length; ) {
    const r = queue.shift();
    own.push(r);
    queue.push(...(children.get(r.ID) ?? []));
  }
  return own;
}

/**
 * Removes the bench's own build records (saltedRecords), leaves first, once its images and
 * salted bases are gone, and nothing else. Returns { removed, bytes, foreign }: foreign counts
 * records of anyone else that disappeared meanwhile (the engine's own GC or another user's
 * prune can do that too; the bench reports it, it does not hide it).
 */
export async function pruneSaltedRecords(marker) {
  const before = await buildRecords();
  const own = saltedRecords(before, marker);
  const ownIds = new Set(own.map((r) => r.ID));
  // Children before parents: a record is removed only once nothing builds on it.
  for (const r of [...own].reverse()) {
    if (r.InUse) continue;
    await runOk(DOCKER_CLI, ["builder", "prune", "--force", "--all", "--filter", `id=${r.ID}`]).catch(() => undefined);
  }
  const after = new Set((await buildRecords()).map((r) => r.ID));
  const gone = own.filter((r) => !after.has(r.ID));
  const foreign = before.filter((r) => !ownIds.has(r.ID) && !after.has(r.ID));
  return {
    removed: gone.length,
    left: own.length - gone.length,
    bytes: gone.reduce((n, r) => n + (r.Size ?? 0), 0),
    foreign: foreign.length,
  };
}
