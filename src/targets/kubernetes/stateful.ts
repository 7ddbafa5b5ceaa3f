import { join } from "node:path";
import * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import type { Plan, PlannedService } from "../../plan/types.js";
import { dataClaimName, selectorLabels } from "./names.js";
import { type ImageSource, podLabels, podSpec, timeouts } from "./specs.js";

/**
 * A service with data (postgres, redis): a StatefulSet of one pod on a claim of its own. One pod
 * per claim, replaced stop-first (the StatefulSet deletes its pod before it makes the new one),
 * which is what one server per data directory needs; a Deployment would start the new pod beside
 * the old one on the same ReadWriteOnce claim.
 */

/** Where a service keeps its data: a hostPath volume on the test cluster, else the default StorageClass. */
export type DataStorage = { readonly kind: "hostPath"; readonly dir: string } | { readonly kind: "storageClass" };

const TEST_STORAGE_CLASS = "platform-local";
const DEFAULT_SIZE = "1Gi";

export interface StatefulArgs {
  readonly plan: Plan;
  readonly service: PlannedService;
  readonly namespace: string;
  readonly image: pulumi.Input<string>;
  readonly envSecret: pulumi.Input<string>;
  readonly imageSource: ImageSource;
  readonly storage: DataStorage;
  readonly opts: pulumi.CustomResourceOptions;
}

/** What the pod runs: its container, init containers, and its volumes given the data claim's name. */
export interface StatefulPod {
  readonly container: k8s.types.input.core.v1.Container;
  readonly initContainers?: k8s.types.input.core.v1.Container[];
  readonly volumes: (claimName: pulumi.Input<string>) => k8s.types.input.core.v1.Volume[];
}

function dataOf(s: PlannedService): { retain: boolean; storage?: string } {
  const d = s.database ?? s.redis;
  if (!d) throw new Error(`${s.name} keeps no data`);
  return d;
}

/** A claim on storage of its own: a hostPath volume made for it on the test cluster, else the default StorageClass's. */
export interface DataClaimArgs {
  /** Prefix of the Pulumi resource names. */
  readonly name: string;
  /** The claim's name in the namespace. */
  readonly claim: string;
  /** The directory under the test cluster's volumes/<namespace>/. */
  readonly dir: string;
  readonly namespace: string;
  readonly labels: Record<string, string>;
  readonly size: string;
  /** Kept through destroy (`retention: permanent`). */
  readonly retain: boolean;
  readonly storage: DataStorage;
  readonly opts: pulumi.CustomResourceOptions;
}

export function createDataClaim(a: DataClaimArgs): k8s.core.v1.PersistentVolumeClaim {
  let volume: k8s.core.v1.PersistentVolume | undefined;
  if (a.storage.kind === "hostPath") {
    volume = new k8s.core.v1.PersistentVolume(
      `${a.name}-volume`,
      {
        metadata: { name: `${a.namespace}-${a.claim}`, labels: a.labels },
        spec: {
          capacity: { storage: a.size },
          accessModes: ["ReadWriteOnce"],
          persistentVolumeReclaimPolicy: "Retain",
          storageClassName: TEST_STORAGE_CLASS,
          claimRef: { namespace: a.namespace, name: a.claim },
          hostPath: { path: join(a.storage.dir, a.namespace, a.dir), type: "DirectoryOrCreate" },
        },
      },
      { ...a.opts, retainOnDelete: a.retain },
    );
  }
  // The claim is deleted before its volume (it depends on it): the other way round, the delete hangs.
  return new k8s.core.v1.PersistentVolumeClaim(
    `${a.name}-data`,
    {
      metadata: { name: a.claim, namespace: a.namespace, labels: a.labels },
      spec: {
        accessModes: ["ReadWriteOnce"],
        resources: { requests: { storage: a.size } },
        ...(volume ? { storageClassName: TEST_STORAGE_CLASS, volumeName: volume.metadata.name } : {}),
      },
    },
    { ...a.opts, retainOnDelete: a.retain, dependsOn: volume ? [volume] : [], ...(volume ? {} : { ignoreChanges: ["spec.volumeName"] }) },
  );
}

/**
 * The data's volume. `retention: permanent` keeps the claim (and its volume) through destroy,
 * and a later deploy adopts it (server-side apply creates over an existing object).
 */
function createClaim(a: StatefulArgs): k8s.core.v1.PersistentVolumeClaim {
  const s = a.service;
  const d = dataOf(s);
  return createDataClaim({
    name: s.name,
    claim: dataClaimName(s),
    dir: s.name,
    namespace: a.namespace,
    labels: podLabels(a.plan, s),
    size: d.storage ?? DEFAULT_SIZE,
    retain: d.retain,
    storage: a.storage,
    opts: a.opts,
  });
}

/** The service's StatefulSet of one pod on its claim; awaited until its readiness check passes. */
export function createStatefulService(a: StatefulArgs, pod: StatefulPod): k8s.apps.v1.StatefulSet {
  const s = a.service;
  const claim = createClaim(a);
  return new k8s.apps.v1.StatefulSet(
    s.name,
    {
      metadata: { name: s.name, namespace: a.namespace, labels: podLabels(a.plan, s) },
      spec: {
        replicas: 1,
        serviceName: s.name,
        selector: { matchLabels: selectorLabels(s) },
        template: {
          metadata: { labels: podLabels(a.plan, s) },
          spec: {
            ...podSpec(s, pod.container, a.imageSource, pod.initContainers ?? []),
            volumes: pod.volumes(claim.metadata.name),
          },
        },
      },
    },
    { ...a.opts, dependsOn: [claim, ...toArray(a.opts.dependsOn)], customTimeouts: timeouts(s.healthTimeoutSeconds + 60) },
  );
}

function toArray(d: pulumi.CustomResourceOptions["dependsOn"]): pulumi.Input<pulumi.Resource>[] {
  if (!d) return [];
  return Array.isArray(d) ? d : [d as pulumi.Input<pulumi.Resource>];
}
