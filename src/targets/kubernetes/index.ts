import * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import type { Plan, PlannedService } from "../../plan/types.js";
import type { ImageBuildOptions } from "../shared/build-image.js";
import { createDatabaseTls } from "../shared/database-tls.js";
import { FRONT_DOOR_OUTPUT } from "../../plan/constants.js";
import { addServiceOutputs, type TargetOutputs } from "../shared/outputs.js";
import { createPublicRoutes, createUrlWords, edgeAliases, publicHostLabels } from "../shared/public-routes.js";
import { Network, type Words } from "../shared/resources.js";
import { buildServiceValues } from "../shared/service-values.js";
import { exportsTelemetry, resolveEnv, type ReferenceValues } from "../shared/references.js";
import { OTLP_ENDPOINT_PROPERTY, TELEMETRY_REF } from "../../plan/otel-env.js";
import { checkCronSchedules } from "./cron.js";
import { checkDatabaseVersions, createDatabaseService, type DataStorage } from "./database.js";
import { buildForwarderCaddyfile, FORWARDER_COMMAND } from "./edge.js";
import { createIngress, frontDoorAddress } from "./front-door.js";
import { databaseHosts, namespaceName, serviceHost } from "./names.js";
import { checkImageRoute, imagePlacement } from "./images.js";
import { EdgeForwarder, NamespaceClaim } from "./resources.js";
import { createRedis } from "./redis.js";
import { podLabels, serviceSpec } from "./specs.js";
import { createTelemetryReceiver } from "./telemetry.js";
import { createAppWorkload, createCronJobs, serviceImage, serviceMigrationImage } from "./workloads.js";

export interface KubernetesTargetOptions extends ImageBuildOptions {
  /** The environment's secrets that the plan references (`${secrets.NAME}`), as Pulumi secrets. */
  readonly secrets?: Readonly<Record<string, pulumi.Output<string>>>;
  /** Path of the kubeconfig that names the cluster (its current context). */
  readonly kubeconfig: string;
  /**
   * Set for the platform's test cluster: images go into its containerd (never pulled) and
   * databases get hostPath volumes under this directory.
   */
  readonly testCluster?: { readonly volumesDir: string };
  /** Where images are pushed for the cluster to pull (`HOST[:PORT][/PATH]`); see images.ts. */
  readonly registry?: string;
  /** Whether the cluster has a default StorageClass (off the test cluster): the telemetry store's claim needs one. */
  readonly defaultStorageClass?: boolean;
}

/** The edge's way in: one forwarder per public service, on the stack's Docker network. */
function createForwarder(
  plan: Plan,
  s: PlannedService,
  words: Words,
  service: k8s.core.v1.Service,
  dependsOn: pulumi.Resource[],
): EdgeForwarder {
  return new EdgeForwarder(
    `${s.name}-edge`,
    {
      name: `${s.containerName}_edge`,
      image: plan.images.caddy,
      command: FORWARDER_COMMAND,
      env: service.spec.clusterIP.apply((ip) => ({ CADDYFILE: buildForwarderCaddyfile(ip, s.port) })),
      networks: edgeAliases(s, words.words).apply((aliases) => [{ name: plan.network, aliases }]),
      // A public container names its host label, so the URL words of other stacks avoid it.
      labels: publicHostLabels({ ...plan.labels, "platform.service": s.name, "platform.role": "edge-forwarder" }, s, words.words),
      cpus: 0.5,
      memoryBytes: 128 * 1024 ** 2,
      pidsLimit: 256,
      // The base caddy image has no HTTP client to probe with; the Service behind it is ready already.
      health: { kind: "running" },
      healthTimeoutSeconds: 30,
      stopFirst: false,
      stopGraceSeconds: 5,
    },
    { dependsOn },
  );
}

/**
 * Turns a plan into Kubernetes resources in the stack's namespace, in the Docker target's
 * order: a database is ready before its dependents migrate; a migration Job succeeds before its
 * Deployment rolls out (a failed one leaves the old ReplicaSet serving); a Deployment is
 * rolled out before its dependents start. Public services come in through the cluster's
 * ingress controller when the plan has a front door, else through the platform's edge. Services
 * export telemetry to the stack's own receiver (telemetry.ts).
 */
export function createKubernetesTarget(plan: Plan, opts: KubernetesTargetOptions): TargetOutputs {
  checkCronSchedules(plan);
  checkDatabaseVersions(plan);
  checkImageRoute(plan, opts);
  const provider = new k8s.Provider("cluster", { kubeconfig: opts.kubeconfig });
  const namespace = namespaceName(plan);
  // A kept claim (a database's, a redis's) needs its namespace kept too: deleting a namespace deletes what is in it.
  const keepNamespace = plan.services.some((s) => (s.database ?? s.redis)?.retain);
  const claim = new NamespaceClaim("namespace-claim", { kubeconfig: opts.kubeconfig, namespace, project: plan.project, env: plan.env });
  const ns = new k8s.core.v1.Namespace(
    "namespace",
    { metadata: { name: namespace, labels: { ...plan.labels } } },
    { provider, retainOnDelete: keepNamespace, dependsOn: [claim] },
  );
  const inNs = { provider, dependsOn: [ns] };
  const placement = imagePlacement(plan, namespace, opts, inNs);
  const imageSource = placement.source;
  const storage: DataStorage = opts.testCluster ? { kind: "hostPath", dir: opts.testCluster.volumesDir } : { kind: "storageClass" };

  // Public services come in through the cluster's ingress controller (the front door), else
  // through the edge on this machine's Docker engine.
  const door = plan.frontDoor;
  const viaEdge = !door && plan.services.some((s) => s.public);
  const network = viaEdge ? new Network("network", { name: plan.network, labels: plan.labels }) : undefined;
  const routes = createPublicRoutes(plan, network);
  const words = routes?.words ?? (door ? createUrlWords(plan) : undefined);
  const edge = routes?.edge;

  const values = buildServiceValues(plan, (s) => serviceHost(s, namespace), words?.words, opts.secrets);
  // Only a cluster that can get images from this machine can run the receiver's.
  const receiver = createTelemetryReceiver(
    {
      plan,
      namespace,
      placement,
      storage: storage.kind === "hostPath" || opts.defaultStorageClass !== false ? storage : undefined,
      provider,
      dependsOn: [ns],
    },
    Boolean(opts.registry || opts.testCluster),
  );
  if (receiver) values.set(TELEMETRY_REF, { [OTLP_ENDPOINT_PROPERTY]: receiver.endpoint });
  const refs: ReferenceValues = values;
  const tls = createDatabaseTls(plan, (s) => databaseHosts(s, namespace));
  // Named by Pulumi (a suffix), like the env Secrets: a renewed CA rolls the pods that trust it.
  const caConfigMap = tls
    ? new k8s.core.v1.ConfigMap(
        "database-ca",
        { metadata: { namespace, labels: { ...plan.labels } }, data: { "ca.crt": tls.caCertPem } },
        inNs,
      ).metadata.name
    : undefined;

  const ready = new Map<string, pulumi.Resource[]>();
  const outputs: TargetOutputs = {};
  for (const s of plan.services) {
    const deps = [
      ...s.dependsOn.flatMap((d) => ready.get(d) ?? []),
      // A service exports from its first request: the receiver answers before it starts.
      ...(receiver && exportsTelemetry(s) ? [receiver.ready] : []),
    ];
    const env = resolveEnv(s.env, refs);
    const image = serviceImage(s, plan, env, opts, placement);
    const labels = podLabels(plan, s);
    // Named by Pulumi (a suffix): new values make a new Secret, whose new name rolls the pods.
    const envSecret = new k8s.core.v1.Secret(`${s.name}-env`, { metadata: { namespace, labels }, type: "Opaque", stringData: env }, inNs)
      .metadata.name;
    // A worker listens on nothing: no Service. Not awaited: its readiness is its workload's
    // (awaited below), and the provider's wait for endpoints counted any failed pod its selector
    // matched, which failed later deploys on refresh.
    const service =
      s.port > 0
        ? new k8s.core.v1.Service(
            `${s.name}-service`,
            {
              metadata: { name: s.name, namespace, labels, annotations: { "pulumi.com/skipAwait": "true" } },
              spec: serviceSpec(s),
            },
            inNs,
          )
        : undefined;
    const c = {
      plan,
      namespace,
      imageSource,
      ...(caConfigMap ? { caConfigMap } : {}),
      provider,
      kubeconfig: opts.kubeconfig,
      logDir: opts.logDir,
      dependsOn: [ns, ...deps],
    };
    const data = { plan, service: s, namespace, image, envSecret, imageSource, storage, opts: { provider, dependsOn: [ns, ...deps] } };
    const workload: pulumi.Resource = s.database
      ? createDatabaseService(data, values.get(s.name)!, tls?.servers.get(s.name), inNs)
      : s.redis
        ? createRedis(data)
        : createAppWorkload(
            c,
            s,
            image,
            envSecret,
            // A rollback runs no migration (see the Docker target).
            s.migrate && !opts.pinnedImages ? serviceMigrationImage(s, plan, env, opts, placement, image) : undefined,
          );
    createCronJobs(c, s, image, envSecret, workload);
    ready.set(s.name, service ? [workload, service] : [workload]);
    if (s.public && words && edge && service) createForwarder(plan, s, words, service, [edge, workload, service]);
    if (s.public && words && door && service) {
      const ingress = createIngress(plan, s, door, words.words, { namespace, labels }, { provider, dependsOn: [ns, workload, service] });
      outputs[FRONT_DOOR_OUTPUT] ??= frontDoorAddress(ingress);
    }
    addServiceOutputs(outputs, s, values.get(s.name)!);
  }
  return outputs;
}
