import * as pulumi from "@pulumi/pulumi";
import type { ContainerInputs } from "../../provider/docker/container.js";
import type { EdgeInputs } from "../../provider/docker/edge.js";
import type { ImageInputs } from "../../provider/docker/image.js";
import type { TelemetryInputs } from "../../provider/docker/receiver.js";
import type { JobInputs } from "../../provider/docker/job.js";

/**
 * The SDK side of the platform's Docker provider (plugin `pulumi-resource-platform`):
 * typed custom resources whose create/diff/read/delete run in the plugin over the Engine API.
 */
type Args<T> = { readonly [K in keyof T]: pulumi.Input<T[K]> };

export class Network extends pulumi.CustomResource {
  declare readonly networkId: pulumi.Output<string>;
  constructor(name: string, args: Args<{ name: string; labels?: Record<string, string>; internal?: boolean }>, opts?: pulumi.CustomResourceOptions) {
    super("platform:docker:Network", name, { ...args, networkId: undefined }, opts);
  }
}

export class Volume extends pulumi.CustomResource {
  /** The volume's real name: the planned one, or this service's volume adopted under an older name. */
  declare readonly volumeName: pulumi.Output<string>;
  /** @param args.retain keep the data when the resource is deleted (retention: permanent) */
  constructor(name: string, args: Args<{ name: string; labels?: Record<string, string>; retain?: boolean }>, opts?: pulumi.CustomResourceOptions) {
    super("platform:docker:Volume", name, { ...args, volumeName: undefined }, opts);
  }
}

export class Image extends pulumi.CustomResource {
  declare readonly imageId: pulumi.Output<string>;
  declare readonly tag: pulumi.Output<string>;
  declare readonly reused: pulumi.Output<boolean>;
  constructor(name: string, args: Args<ImageInputs>, opts?: pulumi.CustomResourceOptions) {
    super("platform:docker:Image", name, { ...args, imageId: undefined, reused: undefined, logFile: undefined }, opts);
  }
}

export class Container extends pulumi.CustomResource {
  declare readonly containerName: pulumi.Output<string>;
  constructor(name: string, args: Args<ContainerInputs>, opts?: pulumi.CustomResourceOptions) {
    super("platform:docker:Container", name, { ...args, containerName: undefined }, opts);
  }
}

export class Job extends pulumi.CustomResource {
  declare readonly exitCode: pulumi.Output<number>;
  declare readonly logFile: pulumi.Output<string>;
  constructor(name: string, args: Args<JobInputs>, opts?: pulumi.CustomResourceOptions) {
    super("platform:docker:Job", name, { ...args, exitCode: undefined, logFile: undefined, seconds: undefined }, opts);
  }
}

export class EdgeAttachment extends pulumi.CustomResource {
  constructor(name: string, args: Args<EdgeInputs>, opts?: pulumi.CustomResourceOptions) {
    super("platform:docker:EdgeAttachment", name, { ...args, edgeContainer: undefined }, opts);
  }
}

export class TelemetryAttachment extends pulumi.CustomResource {
  constructor(name: string, args: Args<TelemetryInputs>, opts?: pulumi.CustomResourceOptions) {
    super("platform:docker:TelemetryAttachment", name, { ...args, receiverContainer: undefined }, opts);
  }
}

export class Password extends pulumi.CustomResource {
  declare readonly value: pulumi.Output<string>;
  constructor(name: string, args: Args<{ length: number }>, opts?: pulumi.CustomResourceOptions) {
    super("platform:random:Password", name, { ...args, value: undefined }, { ...opts, additionalSecretOutputs: ["value"] });
  }
}

export class Words extends pulumi.CustomResource {
  declare readonly words: pulumi.Output<string>;
  /**
   * @param args.seedName the only input that draws new words (the stack's identity)
   * @param args.hostPrefixes the stack's public host prefixes: the first draw avoids hosts in use on the engine; later changes keep the words
   */
  constructor(name: string, args: Args<{ seedName: string; hostPrefixes?: string[] }>, opts?: pulumi.CustomResourceOptions) {
    super("platform:random:Words", name, { ...args, words: undefined }, opts);
  }
}
