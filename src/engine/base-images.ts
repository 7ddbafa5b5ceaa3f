import { planBaseImages } from "../plan/base-images.js";
import type { Plan } from "../plan/types.js";

/** The recipes' base images that the engine lacks (a Python or Node version built on first need); none asked when no recipe uses one. */
export async function unbuiltBaseImages(plan: Plan): Promise<string[]> {
  const { pythonVersions = {}, nodeVersions = {}, postgresVersions = {}, python, node, postgres } = plan.images;
  const defaults = [python, node, postgres];
  const versioned = new Set(
    [...Object.values(pythonVersions), ...Object.values(nodeVersions), ...Object.values(postgresVersions)].filter(
      (t) => !defaults.includes(t),
    ),
  );
  const bases = planBaseImages(plan).filter((t) => versioned.has(t));
  if (bases.length === 0) return [];
  // The Docker client loads only when a recipe needs a version the set-up did not build.
  const { findMissingBaseImages } = await import("../provider/docker/base-images.js");
  return (await findMissingBaseImages(bases, plan.images)) ?? [];
}
