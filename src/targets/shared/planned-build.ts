/**
 * What platform.yml gives each built service's build now, known before the engine runs: what
 * a code change's early build (engine/prebuild.ts) must match to be the build the program
 * will ask for.
 */
import { readFileSync } from "node:fs";
import { variablesSeenBy } from "../../plan/dockerfile-args.js";
import type { PlannedService } from "../../plan/types.js";
import { type BuildInputs, buildArgsText } from "./context-hash.js";

export interface PlannedBuild extends BuildInputs {
  /** The variables the build reads (variablesSeenBy): platform.yml's literal value, or null for one with a reference, resolved by the program. */
  readonly seenEnv: Readonly<Record<string, string | null>>;
}

/** What a built service's build is given (the Dockerfile read from its file, or the recipe's); undefined when it is not built. */
export function buildInputsOf(s: PlannedService): BuildInputs | undefined {
  const b = s.build;
  if (!b) return undefined;
  if (b.kind === "recipe")
    return { context: b.context, dockerfile: b.recipe.dockerfile, dockerignore: b.recipe.dockerignore, buildArgs: b.buildArgs };
  return { context: b.context, dockerfile: readFileSync(b.dockerfilePath, "utf8"), dockerignore: undefined, buildArgs: b.buildArgs };
}

/** Per built service, what its build is given now; a Dockerfile that cannot be read is left out (the program reports it). */
export function plannedBuilds(services: readonly PlannedService[]): Map<string, PlannedBuild> {
  const out = new Map<string, PlannedBuild>();
  for (const s of services) {
    let inputs: BuildInputs | undefined;
    try {
      inputs = buildInputsOf(s);
    } catch {
      /* the program reports an unreadable Dockerfile */
    }
    if (!inputs) continue;
    const seenEnv = Object.fromEntries(
      variablesSeenBy(inputs.dockerfile, s.buildEnv).map((n) => {
        const parts = s.env[n];
        const texts = parts?.flatMap((p) => (p.kind === "text" ? [p.text] : []));
        return [n, parts && texts?.length === parts.length ? texts.join("") : null];
      }),
    );
    out.set(s.name, { ...inputs, seenEnv });
  }
  return out;
}

/** Whether two builds are given the same Dockerfile, ignore rules, arguments and context directory. */
export function sameBuildInputs(a: BuildInputs, b: BuildInputs): boolean {
  return (
    a.context === b.context &&
    a.dockerfile === b.dockerfile &&
    a.dockerignore === b.dockerignore &&
    buildArgsText(a.buildArgs) === buildArgsText(b.buildArgs)
  );
}

/**
 * Whether the build reads the variables its last build read (`last`: all the variables it was
 * given), with the same values where platform.yml writes them out. A value made of references
 * (a URL, a password, a secret) is taken as unchanged: only the program resolves it, and an
 * early build made with another value is simply not taken.
 */
export function sameSeenEnv(build: PlannedBuild, last: Readonly<Record<string, string>>): boolean {
  const lastSeen = variablesSeenBy(build.dockerfile, Object.keys(last));
  const names = Object.keys(build.seenEnv);
  if (lastSeen.length !== names.length || lastSeen.some((n) => !Object.hasOwn(build.seenEnv, n))) return false;
  return names.every((n) => build.seenEnv[n] === null || build.seenEnv[n] === last[n]);
}
