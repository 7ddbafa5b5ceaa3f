import type * as pulumi from "@pulumi/pulumi";
import { SECRETS_REF } from "../../config/index.js";
import type { Plan, PlannedService } from "../../plan/types.js";
import { referenceValues } from "./references.js";
import { Password } from "./resources.js";

/**
 * What every `${service.property}` of a stack resolves to, whatever the target: each service's
 * values (a database's password generated once per stack), and `${secrets.NAME}` as a property
 * of the reserved name "secrets". `hostOf` is how other services reach one on the target.
 */
export function buildServiceValues(
  plan: Plan,
  hostOf: (s: PlannedService) => string,
  words: pulumi.Output<string> | undefined,
  secrets: Readonly<Record<string, pulumi.Output<string>>> | undefined,
): Map<string, Record<string, pulumi.Input<string>>> {
  const values = new Map<string, Record<string, pulumi.Input<string>>>();
  for (const s of plan.services) {
    const password = s.database || s.redis ? new Password(`${s.name}-password`, { length: 32 }) : undefined;
    values.set(s.name, referenceValues(s, plan, hostOf(s), words, password?.value));
  }
  values.set(SECRETS_REF, { ...(secrets ?? {}) });
  return values;
}
