import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Plan, PlanContext } from "./types.js";

/**
 * The plan, built once per process for one platform.yml text and one set of settings. Under
 * `platform deploy` the deploy flow plans (engine/deploy-flow.ts), then the program runs twice
 * in the same process, the fingerprint's mock run and the engine's run, and both take that plan
 * instead of loading, scanning and planning again: the three see one plan even when a file
 * changes while the deploy runs (a fingerprint taken of another plan than the one deployed would
 * make a changed deploy look like a no-op). Under `pulumi up` the program is a process of its
 * own and builds its plan. Only a plan that was built is kept (an error is thrown again by the
 * next try), and only the last few: a long-running process (Studio) deploys many stacks.
 */
const plans = new Map<string, Promise<Plan>>();
const KEEP = 8;

/** What one plan is built from: the file's path and text, and the settings. */
export function planKey(configFile: string, settings: PlanContext): string {
  let text: string;
  try {
    text = readFileSync(configFile, "utf8");
  } catch {
    text = "";
  }
  return createHash("sha256")
    .update(resolve(configFile))
    .update("\0")
    .update(text)
    .update("\0")
    .update(JSON.stringify(settings))
    .digest("hex");
}

/** The plan for `configFile` and `settings`: the one this process built already, else `build()`'s. */
export async function planOnce(configFile: string, settings: PlanContext, build: () => Promise<Plan>): Promise<Plan> {
  const key = planKey(configFile, settings);
  const known = plans.get(key);
  if (known) return known;
  const made = build();
  plans.set(key, made);
  while (plans.size > KEEP) plans.delete(plans.keys().next().value as string);
  try {
    return await made;
  } catch (e) {
    plans.delete(key);
    throw e;
  }
}
