import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { VisibleError } from "../../errors.js";
import type { Plan, PlannedService } from "../../plan/types.js";
import { type ImageBuildOptions, createImage } from "../shared/build-image.js";
import { createDatabaseTls } from "../shared/database-tls.js";
import { addServiceOutputs, type TargetOutputs } from "../shared/outputs.js";
import { createPublicRoutes, edgeAliases, publicHostLabels } from "../shared/public-routes.js";
import { Network, type Words } from "../shared/resources.js";
import { buildServiceValues } from "../shared/service-values.js";
import { resolveEnv, type ReferenceValues } from "../shared/references.js";
import { checkDatabaseVersions, createDatabase, type DataStorage } from "./database.js";
import { buildForwarderCaddyfile, FORWARDER_COMMAND } from "./edge.js";
import { databaseHosts, namespaceName, serviceHost } from "./names.js";
import { checkImageRoute, imagePlacement } from "./images.js";
import { EdgeForwarder } from "./resources.js";
import { appContainer, deploymentSpec, migrateJobSpec, podLabels, serviceSpec, timeouts } from "./specs.js";

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

/** What only the Docker target runs so far (README "What is not built yet"): said before any resource. */
function checkNotBuiltHere(plan: Plan): void {
  const missing = plan.services.filter((s) => s.type === "redis" || s.type === "worker" || s.cron?.length || s.prebuilt);
  if (missing.length)
    throw new VisibleError(
      `${missing.map((s) => `services.${s.name} (${s.cron?.length ? "cron" : s.prebuilt ? "image" : `type ${s.type}`})`).join(", ")}: not on the Kubernetes target yet (Redis StatefulSets, Deployments without a Service for workers, CronJobs and pinned prebuilt images are not built); deploy to Docker (the default target) for now`,
    );
}

/**
 * Turns a plan into Kubernetes resources in the stack's namespace, in the Docker target's
 * order: a database is ready before its dependents migrate; a migration Job succeeds before its
 * Deployment rolls out (a failed one leaves the old ReplicaSet serving); a Deployment is
 * rolled out before its dependents start. Public services come in through the platform's edge.
 */
export function createKubernetesTarget(plan: Plan, opts: KubernetesTargetOptions): TargetOutputs {
  checkNotBuiltHere(plan);
  checkDatabaseVersions(plan);
  checkImageRoute(plan, opts);
  const provider = new k8s.Provider("cluster", { kubeconfig: opts.kubeconfig });
  const namespace = namespaceName(plan);
  // A kept database claim needs its namespace kept too: deleting a namespace deletes what is in it.
  const keepNamespace = plan.services.some((s) => s.database?.retain);
  const ns = new k8s.core.v1.Namespace(
    "namespace",
    { metadata: { name: namespace, labels: { ...plan.labels } } },
    { provider, retainOnDelete: keepNamespace },
  );
  const inNs = { provider, dependsOn: [ns] };
  const placement = imagePlacement(plan, namespace, opts, inNs);
  const imageSource = placement.source;
  const storage: DataStorage = opts.testCluster ? { kind: "hostPath", dir: opts.testCluster.volumesDir } : { kind: "storageClass" };

  // Public services come in through the edge on this machine's Docker engine.
  const network = plan.services.some((s) => s.public) ? new Network("network", { name: plan.network, labels: plan.labels }) : undefined;
  const routes = createPublicRoutes(plan, network);
  const words = routes?.words;
  const edge = routes?.edge;

  const values = buildServiceValues(plan, (s) => serviceHost(s, namespace), words?.words, opts.secrets);
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
    const deps = s.dependsOn.flatMap((d) => ready.get(d) ?? []);
    const env = resolveEnv(s.env, refs);
    const built = s.build ? createImage(s, plan, env, opts).tag : pulumi.output(s.image as string);
    const image = placement.place(s, built);
    const labels = podLabels(plan, s);
    // Named by Pulumi (a suffix): new values make a new Secret, whose new name rolls the pods.
    const envSecret = new k8s.core.v1.Secret(`${s.name}-env`, { metadata: { namespace, labels }, type: "Opaque", stringData: env }, inNs);
    // Not awaited: its readiness is its workload's (awaited below), and the provider's wait for
    // endpoints counted any failed pod its selector matched, which failed later deploys on refresh.
    const service = new k8s.core.v1.Service(
      `${s.name}-service`,
      {
        metadata: { name: s.name, namespace, labels, annotations: { "pulumi.com/skipAwait": "true" } },
        spec: serviceSpec(s),
      },
      inNs,
    );
    let workload: pulumi.Resource;
    if (s.database) {
      const v = values.get(s.name)!;
      new k8s.core.v1.Secret(
        `${s.name}-credentials`,
        {
          metadata: { name: `${s.name}-credentials`, namespace, labels },
          stringData: pulumi.secret({
            username: s.database.user,
            password: v.password as pulumi.Output<string>,
            database: s.database.database,
            url: v.url as pulumi.Output<string>,
          }),
        },
        inNs,
      );
      const server = tls?.servers.get(s.name);
      // Named by Pulumi: a renewed certificate makes a new Secret, whose new name rolls the pod.
      const tlsSecret = server
        ? new k8s.core.v1.Secret(
            `${s.name}-tls`,
            {
              metadata: { namespace, labels },
              type: "kubernetes.io/tls",
              stringData: pulumi.secret({ "tls.crt": server.certPem, "tls.key": server.keyPem }),
            },
            inNs,
          ).metadata.name
        : undefined;
      workload = createDatabase({
        plan,
        service: s,
        namespace,
        image,
        envSecret: envSecret.metadata.name,
        imageSource,
        storage,
        ...(tlsSecret ? { tlsSecret } : {}),
        opts: { provider, dependsOn: [ns, ...deps] },
      });
    } else {
      // A rollback runs no migration (see the Docker target).
      const migrate =
        s.migrate && !opts.pinnedImages
          ? new k8s.batch.v1.Job(
              `${s.name}-migrate`,
              { metadata: { namespace, labels }, spec: migrateJobSpec(plan, s, image, envSecret.metadata.name, imageSource, caConfigMap) },
              {
                provider,
                dependsOn: [ns, ...deps],
                customTimeouts: timeouts(s.migrate.timeoutSeconds + 30),
              },
            )
          : undefined;
      workload = new k8s.apps.v1.Deployment(
        s.name,
        {
          metadata: { name: s.name, namespace, labels },
          spec: deploymentSpec(plan, s, appContainer(s, image, envSecret.metadata.name, imageSource), imageSource, caConfigMap),
        },
        { provider, dependsOn: [ns, ...deps, ...(migrate ? [migrate] : [])], customTimeouts: timeouts(s.healthTimeoutSeconds + 60) },
      );
    }
    ready.set(s.name, [workload, service]);
    if (s.public && words && edge) createForwarder(plan, s, words, service, [edge, workload, service]);
    addServiceOutputs(outputs, s, values.get(s.name)!);
  }
  return outputs;
}
