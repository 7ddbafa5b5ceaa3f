import * as pulumi from "@pulumi/pulumi";
import type { EdgeInputs } from "../../provider/contract/docker-inputs.js";
import type { ImageInputs } from "../../provider/contract/docker-inputs.js";
import type { PulledImageInputs } from "../../provider/contract/docker-inputs.js";

/**
 * The SDK side of the platform's provider plugin (`pulumi-resource-platform`, src/provider/)
 * that both targets use: typed custom resources whose create/diff/read/delete run in the
 * plugin. Their type tokens are part of every stack's state: never rename them.
 */
export type Args<T> = { readonly [K in keyof T]: pulumi.Input<T[K]> };

export class Network extends pulumi.CustomResource {
  declare readonly networkId: pulumi.Output<string>;
  constructor(
    name: string,
    args: Args<{ name: string; labels?: Record<string, string>; internal?: boolean }>,
    opts?: pulumi.CustomResourceOptions,
  ) {
    super("platform:docker:Network", name, { ...args, networkId: undefined }, opts);
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

/** A prebuilt image (platform.yml image:) on this machine's engine: `hash` is the image id that runs. */
export class PulledImage extends pulumi.CustomResource {
  declare readonly hash: pulumi.Output<string>;
  constructor(name: string, args: Args<PulledImageInputs>, opts?: pulumi.CustomResourceOptions) {
    super("platform:docker:PulledImage", name, { ...args, hash: undefined, current: undefined, pulled: undefined }, opts);
  }
}

export class EdgeAttachment extends pulumi.CustomResource {
  constructor(name: string, args: Args<EdgeInputs>, opts?: pulumi.CustomResourceOptions) {
    super("platform:docker:EdgeAttachment", name, { ...args, edgeContainer: undefined }, opts);
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

/** A stack's CA for its databases' TLS; the key is a secret of the stack's state. */
export class CertificateAuthority extends pulumi.CustomResource {
  declare readonly certPem: pulumi.Output<string>;
  declare readonly keyPem: pulumi.Output<string>;
  declare readonly notAfter: pulumi.Output<string>;
  /** @param args.renewBeforeDays a deploy within this many days of its end makes a new one */
  constructor(
    name: string,
    args: Args<{ commonName: string; validityDays: number; renewBeforeDays: number }>,
    opts?: pulumi.CustomResourceOptions,
  ) {
    super(
      "platform:tls:CertificateAuthority",
      name,
      { ...args, certPem: undefined, keyPem: undefined, notAfter: undefined },
      { ...opts, additionalSecretOutputs: ["keyPem"] },
    );
  }
}

/** A database's server certificate, signed by the stack's CA, naming the hosts clients dial. */
export class ServerCertificate extends pulumi.CustomResource {
  declare readonly certPem: pulumi.Output<string>;
  declare readonly keyPem: pulumi.Output<string>;
  declare readonly notAfter: pulumi.Output<string>;
  /** @param args.renewBeforeDays a deploy within this many days of its end makes a new one */
  constructor(
    name: string,
    args: Args<{ caCertPem: string; caKeyPem: string; hosts: string[]; validityDays: number; renewBeforeDays: number }>,
    opts?: pulumi.CustomResourceOptions,
  ) {
    super(
      "platform:tls:ServerCertificate",
      name,
      { ...args, certPem: undefined, keyPem: undefined, notAfter: undefined },
      { ...opts, additionalSecretOutputs: ["keyPem"] },
    );
  }
}
