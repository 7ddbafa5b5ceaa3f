import * as pulumi from "@pulumi/pulumi";
import type { ContainerInputs } from "../../provider/contract/docker-inputs.js";
import type { JobInputs } from "../../provider/contract/docker-inputs.js";
import type { TelemetryInputs } from "../../provider/contract/docker-inputs.js";
import type { Args } from "../shared/resources.js";

/** The Docker target's own resources of the platform's provider plugin (see shared/resources.ts). */
export class Volume extends pulumi.CustomResource {
  /** The volume's real name: the planned one, or this service's volume adopted under an older name. */
  declare readonly volumeName: pulumi.Output<string>;
  /** @param args.retain keep the data when the resource is deleted (retention: permanent) */
  constructor(
    name: string,
    args: Args<{ name: string; labels?: Record<string, string>; retain?: boolean }>,
    opts?: pulumi.CustomResourceOptions,
  ) {
    super("platform:docker:Volume", name, { ...args, volumeName: undefined }, opts);
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

/** The shared OTLP receiver joined to one stack's network. */
export class TelemetryAttachment extends pulumi.CustomResource {
  constructor(name: string, args: Args<TelemetryInputs>, opts?: pulumi.CustomResourceOptions) {
    super("platform:docker:TelemetryAttachment", name, { ...args, receiverContainer: undefined }, opts);
  }
}
