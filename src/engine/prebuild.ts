import type { ImageInputs } from "../provider/contract/docker-inputs.js";
import { combineBuildHash, hashBuildInputs } from "../targets/shared/context-hash.js";
import { type PlannedBuild, sameBuildInputs, sameSeenEnv } from "../targets/shared/planned-build.js";
import type { Checkpoint } from "./checkpoint.js";
import { parseUrn } from "./progress.js";
import { passphraseDecrypter, revealSecret } from "./state-secrets.js";

/** An image whose build context changed since the last engine run: the inputs of that run's build, and its identity now. */
export interface ChangedImage {
  readonly inputs: Readonly<Record<string, unknown>>;
  /** What platform.yml gives the build now. */
  readonly build: PlannedBuild;
  readonly hash: string;
  readonly tag: string;
}

/**
 * The built images of a checkpoint whose context (what BuildKit would be sent) no longer
 * gives the hash they were built with: a code change. Only an image whose build is given
 * exactly what its last build was (`builds`, from platform.yml now: Dockerfile, ignore rules,
 * arguments) is taken: its new identity, with the last build's variables' hash, is then the
 * one the program will ask for when nothing but the code changed. A changed Dockerfile or
 * recipe is left to the engine, as are a rollback's pinned images, a service no longer built
 * and contexts that cannot be read.
 */
export function changedImages(c: Checkpoint, builds: ReadonlyMap<string, PlannedBuild>): ChangedImage[] {
  const out: ChangedImage[] = [];
  for (const r of c.resources) {
    const i = r.inputs;
    if (r.type !== "platform:docker:Image" || !i || i.pinned !== false) continue;
    const now = builds.get(parseUrn(r.urn).name.replace(/-image$/, ""));
    const { context, dockerfile, dockerignore, buildArgs, buildEnvHash, hash, tag } = i;
    if (
      !now ||
      typeof context !== "string" ||
      typeof dockerfile !== "string" ||
      typeof buildEnvHash !== "string" ||
      typeof tag !== "string"
    )
      continue;
    const last = {
      context,
      dockerfile,
      dockerignore: typeof dockerignore === "string" ? dockerignore : undefined,
      buildArgs: (buildArgs ?? {}) as Record<string, string>,
    };
    if (!sameBuildInputs(now, last)) continue;
    try {
      const next = combineBuildHash(hashBuildInputs(now), buildEnvHash);
      if (next !== hash) out.push({ inputs: i, build: now, hash: next, tag: `${tag.slice(0, tag.lastIndexOf(":"))}:${next.slice(0, 12)}` });
    } catch {
      /* the program reports an unreadable context */
    }
  }
  return out;
}

/**
 * A code change's builds, started before the engine (issue 29: the build was on the deploy's
 * critical path, after the engine's start and the steps its image waits for). Each changed
 * image is built with its last build's inputs, its variables decrypted from the checkpoint
 * with the stack's passphrase, unless platform.yml now writes another value for one the
 * build reads. The provider, served from this process, takes the image only when tag and
 * inputs hash equal what the program asks for, which includes the variables' hash: a build
 * with other values can never be taken for it. Returns how many were started.
 */
export async function startPrebuilds(c: Checkpoint, passphrase: string, builds: ReadonlyMap<string, PlannedBuild>): Promise<number> {
  const changed = changedImages(c, builds);
  if (!changed.length || !c.saltState) return 0;
  const decrypt = await passphraseDecrypter(passphrase, c.saltState);
  if (!decrypt) return 0;
  const { prebuildImage } = await import("../provider/docker/image.js");
  let started = 0;
  for (const x of changed) {
    const buildEnv = x.inputs.buildEnv === undefined ? {} : revealSecret(x.inputs.buildEnv, decrypt);
    // A value the build reads that platform.yml now writes otherwise: the program asks for another build.
    if (typeof buildEnv !== "object" || buildEnv === null || !sameSeenEnv(x.build, buildEnv as Record<string, string>)) continue;
    prebuildImage({ ...(x.inputs as unknown as ImageInputs), buildEnv: buildEnv as Record<string, string>, hash: x.hash, tag: x.tag });
    started++;
  }
  return started;
}
