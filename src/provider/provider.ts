import type { CheckResult, CreateResult, DiffResult, Provider, ReadResult, UpdateResult } from "@pulumi/pulumi/provider/index.js";
import { clusterImageHandler } from "./kubernetes/cluster-image.js";
import { registryImageHandler } from "./kubernetes/registry-image.js";
import { migrationOutcomeHandler } from "./kubernetes/migration-outcome.js";
import { namespaceClaimHandler } from "./kubernetes/namespace-claim.js";
import { workerRolloutHandler } from "./kubernetes/worker-rollout.js";
import { containerHandler } from "./docker/container.js";
import { edgeHandler } from "./docker/edge.js";
import { diffByKeys, type ResourceHandler } from "./handler.js";
import { imageHandler } from "./docker/image.js";
import { jobHandler } from "./docker/job.js";
import { pulledImageHandler } from "./docker/pulled-image.js";
import { networkHandler } from "./docker/network.js";
import { passwordHandler, wordsHandler } from "./random/random.js";
import { receiverImageHandler, telemetryHandler } from "./docker/receiver.js";
import { certificateAuthorityHandler, serverCertificateHandler } from "./tls/tls.js";
import { volumeHandler } from "./docker/volume.js";
import { reveal } from "./wire.js";

export const PROVIDER_VERSION = "0.1.0";

const HANDLERS: Record<string, ResourceHandler> = {
  "platform:docker:Network": networkHandler,
  "platform:docker:Volume": volumeHandler,
  "platform:docker:Image": imageHandler,
  "platform:docker:PulledImage": pulledImageHandler,
  "platform:docker:Container": containerHandler,
  "platform:docker:Job": jobHandler,
  "platform:docker:EdgeAttachment": edgeHandler,
  "platform:docker:TelemetryAttachment": telemetryHandler,
  "platform:random:Password": passwordHandler,
  "platform:random:Words": wordsHandler,
  // A stack's databases serve TLS: its CA and their server certificates.
  "platform:tls:CertificateAuthority": certificateAuthorityHandler,
  "platform:tls:ServerCertificate": serverCertificateHandler,
  // The Kubernetes target's own needs: images into the test cluster, and the edge's way in.
  "platform:kubernetes:ClusterImage": clusterImageHandler,
  "platform:kubernetes:RegistryImage": registryImageHandler,
  "platform:kubernetes:EdgeForwarder": containerHandler,
  "platform:kubernetes:WorkerRollout": workerRolloutHandler,
  "platform:kubernetes:NamespaceClaim": namespaceClaimHandler,
  "platform:kubernetes:MigrationOutcome": migrationOutcomeHandler,
  "platform:kubernetes:ReceiverImage": receiverImageHandler,
};

/** The resource type of a URN: urn:pulumi:stack::project::[parent$]type::name */
function typeOf(urn: string): string {
  const qualified = urn.split("::")[2] ?? "";
  return qualified.split("$").pop() ?? qualified;
}

/** The handler of a resource type, or undefined for a type this provider does not know. */
export function handlerOfType(type: string): ResourceHandler | undefined {
  return HANDLERS[type];
}

function handlerFor(urn: string): ResourceHandler {
  const h = HANDLERS[typeOf(urn)];
  if (!h) throw new Error(`platform provider: unknown resource type ${typeOf(urn)}`);
  return h;
}

type Props = Record<string, unknown>;

/** Stored outputs: the inputs as received (secrets still wrapped) plus what the handler computed. */
function outputs(inputs: Props, computed: Props): Props {
  return { ...inputs, ...computed };
}

export const platformProvider: Provider = {
  version: PROVIDER_VERSION,

  async check(_urn, _olds, news): Promise<CheckResult> {
    return { inputs: news };
  },

  async diff(_id, urn, olds: Props, news: Props): Promise<DiffResult> {
    return diffByKeys(handlerFor(urn), olds, news);
  },

  async create(urn, inputs: Props): Promise<CreateResult> {
    const { id, outs } = await handlerFor(urn).create(urn, reveal(inputs));
    return { id, outs: outputs(inputs, outs) };
  },

  async read(id, urn, props: Props = {}): Promise<ReadResult> {
    const truth = await handlerFor(urn).read(id, reveal(props));
    // An empty id tells the engine the object is gone, so refresh drops it from state.
    if (!truth) return { id: "", props: {} };
    return { id, props: { ...props, ...truth } };
  },

  async update(id, urn, olds: Props, news: Props): Promise<UpdateResult> {
    const h = handlerFor(urn);
    const computed = h.update ? await h.update(id, reveal(olds), reveal(news)) : {};
    return { outs: outputs(news, computed) };
  },

  async delete(id, urn, props: Props): Promise<void> {
    await handlerFor(urn).delete(id, reveal(props));
  },
};
