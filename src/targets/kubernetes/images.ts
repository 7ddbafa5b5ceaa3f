import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { Plan, PlannedService } from "../../plan/types.js";
import { dockerConfigFor } from "./registry-auth.js";
import { ClusterImage, RegistryImage } from "./resources.js";
import type { ImageSource } from "./specs.js";

/**
 * How the cluster's nodes get the images built and kept on this machine's Docker engine:
 *   - a registry (`--registry`): each image is pushed there and pods run it by digest, pulled
 *     with the credentials of `docker login` when there are some (a credential helper's too);
 *   - the test cluster without a registry: imported into its containerd, never pulled;
 *   - any other cluster without a registry: refused before anything is created, because its
 *     nodes could not pull an image that exists only here.
 */
export interface ImagePlacement {
  readonly source: ImageSource;
  /**
   * The reference pods run for the service's image. `tagAs`: a name the engine's image gets
   * first (a prebuilt image goes to the cluster under a name made from its id).
   */
  place(s: PlacedImage, image: pulumi.Input<string>, tagAs?: pulumi.Input<string>): pulumi.Input<string>;
}

/** Whose image: a service's, or the platform's own (the telemetry receiver), by the name its resources take. */
export type PlacedImage = Pick<PlannedService, "name"> & Partial<Pick<PlannedService, "prebuilt" | "image">>;

export interface PlacementOptions {
  readonly registry?: string;
  readonly testCluster?: unknown;
  readonly kubeconfig: string;
}

/** Refuses, before any resource is declared, a cluster that could not pull the stack's images. */
export function checkImageRoute(plan: Plan, o: PlacementOptions): void {
  if (o.registry || o.testCluster) return;
  const local = plan.services.filter((s) => s.build || s.image?.startsWith("platform-local/"));
  if (local.length) {
    throw new pulumi.RunError(
      `the cluster of ${o.kubeconfig} cannot pull the images built on this machine (${local.map((s) => s.name).join(", ")}): ` +
        "give a registry that this machine can push to and its nodes can pull from: platform deploy --registry HOST[:PORT][/PATH] (kept per environment)",
    );
  }
}

export function imagePlacement(plan: Plan, namespace: string, o: PlacementOptions, inNs: pulumi.CustomResourceOptions): ImagePlacement {
  if (o.registry) {
    const registry = o.registry;
    const host = registry.split("/")[0] as string;
    const config = dockerConfigFor(host);
    const secret = config
      ? new k8s.core.v1.Secret(
          "registry-credentials",
          {
            metadata: { namespace, labels: { ...plan.labels } },
            type: "kubernetes.io/dockerconfigjson",
            stringData: { ".dockerconfigjson": pulumi.secret(config) },
          },
          inNs,
        )
      : undefined;
    return {
      source: { pullPolicy: "IfNotPresent", ...(secret ? { pullSecrets: [secret.metadata.name] } : {}) },
      place: (s, image, tagAs) => new RegistryImage(`${s.name}-registry-image`, { image, registry, ...(tagAs ? { tagAs } : {}) }).id,
    };
  }
  if (o.testCluster)
    return {
      source: { pullPolicy: "Never" },
      place: (s, image, tagAs) => new ClusterImage(`${s.name}-cluster-image`, { image, ...(tagAs ? { tagAs } : {}) }).id,
    };
  // Only public images are left here (checkImageRoute refused the rest): the nodes pull them, by
  // the name platform.yml gives (the engine's image id means nothing to them).
  return { source: { pullPolicy: "IfNotPresent" }, place: (s, image) => (s.prebuilt ? (s.image as string) : image) };
}
