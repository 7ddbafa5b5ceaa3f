import * as pulumi from "@pulumi/pulumi";
import { variablesSeenBy } from "../../plan/dockerfile-args.js";
import { imageRepository } from "../../plan/naming.js";
import type { Plan, PlannedService } from "../../plan/types.js";
import { combineBuildHash, hashBuildEnv, hashBuildInputs } from "./context-hash.js";
import { buildInputsOf } from "./planned-build.js";
import { Image, PulledImage } from "./resources.js";

/** What building a service's image needs from the program, whatever the target. */
export interface ImageBuildOptions {
  /** The machine's key for the hash of build-time variables (never the values' plain hash). */
  readonly buildEnvKey: Buffer;
  /** Extra CA certificates for builds (a BuildKit secret). */
  readonly caFile?: string;
  /** Where build and migration logs go. */
  readonly logDir: string;
  /** Per service, an image to run as it is (a rollback): never built, and an error when it is gone. */
  readonly pinnedImages?: Readonly<Record<string, { tag: string; hash: string }>>;
}

/** The variables a build sees: the service's own, resolved; a secret like the whole env. */
function pickBuildEnv(env: pulumi.Output<Record<string, string>>, names: readonly string[]): pulumi.Output<Record<string, string>> {
  return env.apply((e) => Object.fromEntries(names.filter((n) => n in e).map((n) => [n, e[n] as string])));
}

/**
 * The image of a built service. Its identity covers what BuildKit receives and a hash of the
 * variables the build can read (variablesSeenBy), so a changed value that a build step reads
 * rebuilds. The hash (keyed by the machine) comes from the secret values,
 * but a hash is not the value: it is unwrapped, so tags and records stay readable. The values
 * themselves go to the provider as a secret input. The Image depends only on what the values
 * need (the URL words, a database password), never on containers, so builds start at once.
 */
export function createImage(
  s: PlannedService,
  plan: Plan,
  env: pulumi.Output<Record<string, string>>,
  opts: ImageBuildOptions,
  /** A stage of the Dockerfile other than its last (a migration's), built as an image of its own. */
  target?: string,
): Image {
  const inputs = buildInputsOf(s)!;
  const { dockerfile } = inputs;
  const pinned = target ? undefined : opts.pinnedImages?.[s.name];
  const name = target ? `${s.name}-${target}` : s.name;
  const common = {
    ...inputs,
    caFile: opts.caFile,
    logDir: opts.logDir,
    label: target ? `${s.name} (${target})` : s.name,
    ...(target ? { target } : {}),
  };
  if (pinned) return new Image(`${name}-image`, { ...common, tag: pinned.tag, hash: pinned.hash, pinned: true });
  const inputsHash = target ? `${hashBuildInputs(inputs)}:${target}` : hashBuildInputs(inputs);
  const buildEnv = pulumi.secret(pickBuildEnv(env, s.buildEnv));
  const buildEnvHash = pulumi.unsecret(
    pickBuildEnv(env, variablesSeenBy(dockerfile, s.buildEnv)).apply((values) => hashBuildEnv(values, opts.buildEnvKey)),
  );
  const hash = buildEnvHash.apply((h) => combineBuildHash(inputsHash, h));
  return new Image(`${name}-image`, {
    ...common,
    tag: hash.apply((h) => `${imageRepository(plan.project, name)}:${h.slice(0, 12)}`),
    pinned: false,
    hash,
    buildEnv,
    buildEnvHash,
  });
}

/** The image a service's migration runs: its recipe's migrate stage (every dependency), else the service's own image. */
export function migrationImage(
  s: PlannedService,
  plan: Plan,
  env: pulumi.Output<Record<string, string>>,
  opts: ImageBuildOptions,
): pulumi.Output<string> | undefined {
  const target = s.build?.kind === "recipe" ? s.build.recipe.migrateTarget : undefined;
  return target ? createImage(s, plan, env, opts, target).tag : undefined;
}

/**
 * A prebuilt image (platform.yml `image:`): the engine's copy, else pulled. Its output is the
 * image id (`sha256:…`), which the deployment record keeps, so a rollback (pinnedImages) runs
 * exactly that image even after the tag moved.
 */
export function createPulledImage(s: PlannedService, opts: ImageBuildOptions): pulumi.Output<string> {
  const pinned = opts.pinnedImages?.[s.name];
  return new PulledImage(`${s.name}-image`, { tag: s.image as string, label: s.name, ...(pinned ? { pinnedId: pinned.hash } : {}) }).hash;
}
