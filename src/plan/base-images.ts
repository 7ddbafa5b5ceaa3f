import type { Plan } from "./types.js";

/**
 * The base images a plan starts from: each recipe's (a Python or Node version) and each
 * database's (a PostgreSQL major). A deploy makes sure the engine has the catalogue's ones
 * before anything is built or started; `platform plan` says which the first deploy will build.
 */
export function planBaseImages(plan: Plan): string[] {
  const tags = plan.services.flatMap((s) => {
    if (s.build?.kind === "recipe") return [s.build.recipe.baseImage];
    return s.database && s.image ? [s.image] : [];
  });
  return [...new Set(tags)];
}
