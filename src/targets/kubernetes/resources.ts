import * as pulumi from "@pulumi/pulumi";
import type { ContainerInputs } from "../../provider/contract/docker-inputs.js";
import type { MigrationOutcomeInputs } from "../../provider/contract/kubernetes-inputs.js";
import type { NamespaceClaimInputs } from "../../provider/contract/kubernetes-inputs.js";
import type { WorkerRolloutInputs } from "../../provider/contract/kubernetes-inputs.js";
import type { Args } from "../shared/resources.js";

/** The SDK side of the Kubernetes target's resources in the platform's provider plugin (src/provider/kubernetes). */

/** An image of the Docker engine, copied into the test cluster's containerd (provider: provider/kubernetes/cluster-image.ts). */
export class ClusterImage extends pulumi.CustomResource {
  /** @param args.tagAs a name the engine's image gets first, and goes in as (a prebuilt image, by its id) */
  constructor(name: string, args: Args<{ image: string; tagAs?: string }>, opts?: pulumi.CustomResourceOptions) {
    super("platform:kubernetes:ClusterImage", name, { ...args }, opts);
  }
}

/** An image of the Docker engine pushed to the cluster's registry; its id is the reference by digest (provider: provider/kubernetes/registry-image.ts). */
export class RegistryImage extends pulumi.CustomResource {
  constructor(name: string, args: Args<{ image: string; registry: string; tagAs?: string }>, opts?: pulumi.CustomResourceOptions) {
    super("platform:kubernetes:RegistryImage", name, { ...args }, opts);
  }
}

/**
 * The edge's way to a public Kubernetes Service: a small proxy container on the stack's Docker
 * network, under the alias the edge dials, forwarding to the Service's ClusterIP. A container
 * like any other to the provider; a type of its own, so that progress never counts it as a service.
 */
export class EdgeForwarder extends pulumi.CustomResource {
  constructor(name: string, args: Args<ContainerInputs>, opts?: pulumi.CustomResourceOptions) {
    super("platform:kubernetes:EdgeForwarder", name, { ...args, containerName: undefined }, opts);
  }
}

/** The wait for one rollout of a worker's Deployment: its first crash fails it (provider: provider/kubernetes/worker-rollout.ts). */
export class WorkerRollout extends pulumi.CustomResource {
  constructor(name: string, args: Args<WorkerRolloutInputs>, opts?: pulumi.CustomResourceOptions) {
    super("platform:kubernetes:WorkerRollout", name, { ...args }, opts);
  }
}

/** A stack's claim on its namespace: refuses one that another stack, or something else, owns (provider: provider/kubernetes/namespace-claim.ts). */
export class NamespaceClaim extends pulumi.CustomResource {
  constructor(name: string, args: Args<NamespaceClaimInputs>, opts?: pulumi.CustomResourceOptions) {
    super("platform:kubernetes:NamespaceClaim", name, { ...args }, opts);
  }
}

/** The end of a migration Job that may fail (on_failure: continue): its exit code and log file (provider: provider/kubernetes/migration-outcome.ts). */
export class MigrationOutcome extends pulumi.CustomResource {
  declare readonly exitCode: pulumi.Output<number>;
  constructor(name: string, args: Args<MigrationOutcomeInputs>, opts?: pulumi.CustomResourceOptions) {
    super("platform:kubernetes:MigrationOutcome", name, { ...args, exitCode: undefined, logFile: undefined }, opts);
  }
}

/** The telemetry receiver's image on this machine's Docker engine; its id is the tag (provider: provider/docker/receiver.ts). */
export class ReceiverImage extends pulumi.CustomResource {
  constructor(name: string, args: Args<{ baseImage: string; hash: string }>, opts?: pulumi.CustomResourceOptions) {
    super("platform:kubernetes:ReceiverImage", name, { ...args }, opts);
  }
}
