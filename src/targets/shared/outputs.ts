import * as pulumi from "@pulumi/pulumi";
import type { PlannedService } from "../../plan/types.js";

/** Stack outputs: `<service>_url`, `<service>_external_url`; a database's url is its secret connection string. */
export type TargetOutputs = Record<string, pulumi.Output<string>>;

/** Adds one service's outputs from what its `${service.property}` references resolve to. */
export function addServiceOutputs(outputs: TargetOutputs, s: PlannedService, values: Readonly<Record<string, pulumi.Input<string>>>): void {
  if (values.url) outputs[`${s.name}_url`] = pulumi.output(values.url);
  if (values.external_url) outputs[`${s.name}_external_url`] = pulumi.output(values.external_url);
  // With custom domains, the platform's own URL still serves (and needs its certificate).
  if (values.platform_url) outputs[`${s.name}_platform_url`] = pulumi.output(values.platform_url);
}
