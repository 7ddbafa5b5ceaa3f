import { dockerRuntime } from "./docker-target.js";
import { kubernetesRuntime } from "./kubernetes-target.js";
import type { TargetRuntime } from "./target-runtime.js";

/** Where a stack runs, as its settings keep it: a kubeconfig names its cluster; none is the Docker engine. */
export interface StackPlace {
  readonly project: string;
  readonly env: string;
  readonly kubeconfig?: string;
  /** The kubeconfig names the platform's own test cluster. */
  readonly testCluster?: boolean;
}

/**
 * The one place that chooses a stack's runtime by its target; every caller goes through the
 * TargetRuntime it returns (a check in test/unit/runtime/seam.test.ts keeps it so). A new target
 * is a new case here and a new implementation of TargetRuntime beside the others.
 */
export function runtimeOf(place: StackPlace): TargetRuntime {
  if (place.kubeconfig)
    return kubernetesRuntime({ project: place.project, env: place.env, kubeconfig: place.kubeconfig }, place.testCluster === true);
  return dockerRuntime(place.project, place.env);
}
