import * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import { TELEMETRY_ROLE, TELEMETRY_SERVICE } from "../../plan/constants.js";
import type { Plan } from "../../plan/types.js";
import { receiverContext, TELEMETRY_DATA, TELEMETRY_PORT } from "../../provider/contract/receiver-image.js";
import { exportsTelemetry } from "../shared/references.js";
import type { ImagePlacement } from "./images.js";
import { ReceiverImage } from "./resources.js";
import type { ImageSource } from "./specs.js";
import { createDataClaim, type DataStorage } from "./stateful.js";

/**
 * The cluster's telemetry receiver: the Docker target's receiver image (the OTLP/HTTP server over
 * its SQLite store) as one pod of a Deployment in the stack's namespace, behind a ClusterIP
 * Service the services export to. One store per stack, on a claim of its own; one writer, so the
 * pod is replaced stop-first (Recreate). Studio reads a copy of the store through exec
 * (runtime/kube-telemetry.ts). Resource names start with "@": no service can be named so.
 */

const STORE_SIZE = "1Gi";
/** Pulumi resource names of the receiver's objects (progress skips names that start with "@"). */
const NAME = "@telemetry";

/** The labels of the receiver's objects: the stack's (destroy and data reads select by them) and its role. */
export function receiverLabels(plan: Pick<Plan, "project" | "env">): Record<string, string> {
  return {
    "app.kubernetes.io/name": TELEMETRY_SERVICE,
    "app.kubernetes.io/managed-by": "platform",
    "platform.project": plan.project,
    "platform.env": plan.env,
    "platform.role": TELEMETRY_ROLE,
  };
}

/** The OTLP/HTTP base URL services in the namespace export to. */
export function receiverEndpoint(namespace: string): string {
  return `http://${TELEMETRY_SERVICE}.${namespace}.svc.cluster.local:${TELEMETRY_PORT}`;
}

/**
 * One pod on the store's claim (or, on a cluster with no storage to claim, in the pod's own
 * directory: the store lasts as long as the pod); replaced stop-first: two servers on one SQLite
 * file would corrupt it.
 */
export function receiverDeploymentSpec(
  plan: Pick<Plan, "project" | "env">,
  image: pulumi.Input<string>,
  src: ImageSource,
  claimName: pulumi.Input<string> | undefined,
): k8s.types.input.apps.v1.DeploymentSpec {
  const labels = receiverLabels(plan);
  return {
    replicas: 1,
    selector: { matchLabels: { "app.kubernetes.io/name": TELEMETRY_SERVICE, "app.kubernetes.io/managed-by": "platform" } },
    strategy: { type: "Recreate" },
    revisionHistoryLimit: 2,
    template: {
      metadata: { labels },
      spec: {
        enableServiceLinks: false,
        terminationGracePeriodSeconds: 10,
        ...(src.pullSecrets?.length ? { imagePullSecrets: src.pullSecrets.map((name) => ({ name })) } : {}),
        containers: [
          {
            name: "receiver",
            image,
            imagePullPolicy: src.pullPolicy,
            ports: [{ name: "otlp-http", containerPort: TELEMETRY_PORT }],
            readinessProbe: { tcpSocket: { port: TELEMETRY_PORT }, periodSeconds: 2, timeoutSeconds: 2, failureThreshold: 3 },
            resources: { limits: { cpu: "1", memory: String(512 * 1024 ** 2) }, requests: { cpu: "10m", memory: String(64 * 1024 ** 2) } },
            volumeMounts: [{ name: "store", mountPath: TELEMETRY_DATA }],
            securityContext: { allowPrivilegeEscalation: false },
          },
        ],
        volumes: [claimName ? { name: "store", persistentVolumeClaim: { claimName } } : { name: "store", emptyDir: {} }],
      },
    },
  };
}

export interface ReceiverArgs {
  readonly plan: Plan;
  readonly namespace: string;
  readonly placement: ImagePlacement;
  /** Where the store is kept: a claim as a data service's, or none (no storage to claim: in the pod). */
  readonly storage: DataStorage | undefined;
  readonly provider: k8s.Provider;
  readonly dependsOn: pulumi.Resource[];
}

/**
 * The receiver, when some service exports telemetry and the cluster can get its image (the test
 * cluster's containerd, or a registry): its Deployment (what exporting services wait for) and its
 * endpoint. Undefined otherwise, and the services' SDK is switched off (references.ts).
 */
export function createTelemetryReceiver(
  a: ReceiverArgs,
  canPlaceImages: boolean,
): { readonly endpoint: string; readonly ready: pulumi.Resource } | undefined {
  if (!canPlaceImages || !a.plan.services.some(exportsTelemetry)) return undefined;
  const { plan, namespace, provider } = a;
  const labels = receiverLabels(plan);
  const opts = { provider, dependsOn: a.dependsOn };
  const { hash } = receiverContext(plan.images.node);
  const local = new ReceiverImage(`${NAME}-image`, { baseImage: plan.images.node, hash });
  const image = a.placement.place({ name: NAME }, local.id);
  const claim = a.storage
    ? createDataClaim({
        name: NAME,
        claim: `${TELEMETRY_SERVICE}-store`,
        dir: TELEMETRY_SERVICE,
        namespace,
        labels,
        size: STORE_SIZE,
        retain: false,
        storage: a.storage,
        opts,
      })
    : undefined;
  const deployment = new k8s.apps.v1.Deployment(
    `${NAME}-receiver`,
    {
      metadata: { name: TELEMETRY_SERVICE, namespace, labels },
      spec: receiverDeploymentSpec(plan, image, a.placement.source, claim?.metadata.name),
    },
    { provider, dependsOn: [...a.dependsOn, ...(claim ? [claim] : [])] },
  );
  new k8s.core.v1.Service(
    `${NAME}-service`,
    {
      metadata: { name: TELEMETRY_SERVICE, namespace, labels, annotations: { "pulumi.com/skipAwait": "true" } },
      spec: {
        type: "ClusterIP",
        selector: { "app.kubernetes.io/name": TELEMETRY_SERVICE, "app.kubernetes.io/managed-by": "platform" },
        ports: [{ name: "otlp-http", port: TELEMETRY_PORT, targetPort: TELEMETRY_PORT }],
      },
    },
    opts,
  );
  return { endpoint: receiverEndpoint(namespace), ready: deployment };
}
