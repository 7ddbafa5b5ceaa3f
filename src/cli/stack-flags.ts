/**
 * The deploy settings read from flags or PLATFORM_* variables (used by deploy and plan alike),
 * checked like the names in platform.yml.
 */
import { resolve } from "node:path";
import { ExitCode, VisibleError } from "../errors.js";
import type { EdgeFlags } from "./edge-flags.js";

export { edgeSettings } from "./edge-flags.js";

/** Where a deploy goes: the edge (its mode, domain and ports), the target and its cluster. */
export interface TargetFlags extends EdgeFlags {
  target?: string;
  kubeconfig?: string;
  registry?: string;
}

/** An image registry as images name it: HOST[:PORT][/PATH], no scheme. */
const REGISTRY = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?(\/[a-z0-9]+([._-][a-z0-9]+)*)*$/;

/** --target / --kubeconfig / --registry, else their PLATFORM_* variables; unset keeps the stack's setting. */
export function targetSettings(o: TargetFlags, env: NodeJS.ProcessEnv): { target?: string; kubeconfig?: string; registry?: string } {
  const target = o.target ?? env.PLATFORM_TARGET;
  if (target !== undefined && target !== "docker" && target !== "kubernetes") {
    throw new VisibleError(`${o.target !== undefined ? "--target" : "PLATFORM_TARGET"}: "${target}" is not a target`, {
      exitCode: ExitCode.usage,
      details: ["  hint: use docker (the default) or kubernetes"],
    });
  }
  const kubeconfig = o.kubeconfig ?? env.PLATFORM_KUBECONFIG;
  const registry = o.registry ?? env.PLATFORM_REGISTRY;
  if (registry !== undefined && !REGISTRY.test(registry)) {
    throw new VisibleError(`${o.registry !== undefined ? "--registry" : "PLATFORM_REGISTRY"}: "${registry}" is not a registry`, {
      exitCode: ExitCode.usage,
      details: [
        "  hint: give HOST[:PORT][/PATH] without a scheme, in lower case: registry.example.com/team, or 127.0.0.1:5001 for the test cluster's",
      ],
    });
  }
  return { ...(target ? { target } : {}), ...(kubeconfig ? { kubeconfig: resolve(kubeconfig) } : {}), ...(registry ? { registry } : {}) };
}
