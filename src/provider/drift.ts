import { isDeepStrictEqual } from "node:util";
import { handlerOfType } from "./provider.js";

/** A resource as the stack's state holds it. */
export interface StateResource {
  readonly type: string;
  readonly id?: string;
  readonly outputs?: Record<string, unknown>;
}

/** Resources the engine makes for itself, which a refresh does not read through this provider. */
const ENGINE_TYPES = /^pulumi:(pulumi:Stack|providers:)/;

/**
 * True when a refresh would find nothing to change and no resource is due for a replacement of
 * its own (forceReplace: a certificate to renew): every resource's read (the same function
 * the engine's refresh calls in the provider plugin) returns what the state already holds.
 * Containers, images, networks and volumes are inspected (a few Docker API calls, in
 * parallel), the edge attachment too; a resource of an unknown type, or any read that fails
 * or differs, says no, and the deploy refreshes as before. Outputs are passed as stored
 * (secrets stay encrypted): the reads that look at their props read plain ones.
 */
export async function inSyncWithDocker(resources: readonly StateResource[]): Promise<boolean> {
  const checks = resources
    .filter((r) => !ENGINE_TYPES.test(r.type))
    .map(async (r) => {
      const h = handlerOfType(r.type);
      if (!h || !r.id) return false;
      const outputs = r.outputs ?? {};
      // Due for replacement whatever the inputs (a certificate near its end): the engine has work.
      if (h.forceReplace?.(outputs).length) return false;
      const truth = await h.read(r.id, outputs);
      return truth !== undefined && Object.entries(truth).every(([k, v]) => isDeepStrictEqual(v, outputs[k]));
    });
  try {
    return (await Promise.all(checks)).every(Boolean);
  } catch {
    return false;
  }
}
