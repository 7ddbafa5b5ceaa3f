import { basename, dirname } from "node:path";
import type * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import type { HealthSpec, Plan, PlannedService } from "../../plan/types.js";
import { WORKER_SETTLE_SECONDS } from "../../plan/worker.js";
import { namespaceName, selectorLabels, serviceHost } from "./names.js";

/**
 * Pure helpers that turn a planned service into Kubernetes specs; the target's body only loops
 * over them creating resources (and unit tests read them as plain objects).
 */
type PodSpec = k8s.types.input.core.v1.PodSpec;
type Container = k8s.types.input.core.v1.Container;

/** How pods get their images: from the test cluster's containerd, never pulled; else from a registry (with its credentials). */
export interface ImageSource {
  readonly pullPolicy: "Never" | "IfNotPresent";
  /** Secrets of type kubernetes.io/dockerconfigjson that the pods pull with. */
  readonly pullSecrets?: readonly pulumi.Input<string>[];
}

const pullSecretsOf = (src: ImageSource) =>
  src.pullSecrets?.length ? { imagePullSecrets: src.pullSecrets.map((name) => ({ name })) } : {};

// Endpoints leave kube-proxy's rules a moment after a pod starts terminating; until they have,
// new connections still reach it. Sleeping before SIGTERM lets them go elsewhere first.
export const PRE_STOP_SECONDS = 5;
const PROBE_PERIOD_SECONDS = 2;

/** The stack's labels on every object: what status, logs and destroy --delete-data select by. */
export function stackLabels(plan: Plan, s: PlannedService): Record<string, string> {
  return { "platform.project": plan.project, "platform.env": plan.env, "platform.service": s.name };
}

/** A serving pod's labels: the stack's, and those its Service and Deployment select. */
export function podLabels(plan: Plan, s: PlannedService): Record<string, string> {
  return { ...selectorLabels(s), ...stackLabels(plan, s) };
}

/** Readiness from platform.yml's health: an HTTP GET, any answer (a TCP connect), a command, or none. */
export function readinessProbe(h: HealthSpec): k8s.types.input.core.v1.Probe | undefined {
  const timing = { periodSeconds: PROBE_PERIOD_SECONDS, timeoutSeconds: 2, failureThreshold: 3, successThreshold: 1 };
  if (h.kind === "http")
    return h.anyStatus ? { tcpSocket: { port: h.port }, ...timing } : { httpGet: { path: h.path, port: h.port }, ...timing };
  if (h.kind === "exec") return { exec: { command: h.command }, ...timing };
  return undefined;
}

/**
 * Limits from the preset; requests stay small, so that a rollout's extra pod (maxSurge 1)
 * always fits on a small node next to the old one.
 */
export function resources(s: PlannedService): k8s.types.input.core.v1.ResourceRequirements {
  return {
    limits: { cpu: String(s.cpus), memory: String(s.memoryBytes) },
    requests: { cpu: "10m", memory: String(Math.min(s.memoryBytes, 64 * 1024 ** 2)) },
  };
}

/** A worker listens on nothing and no Service sends to it: no port, no readiness, no pause before SIGTERM. */
const isWorker = (s: PlannedService) => s.type === "worker";

/** The service's container: its image, its variables from a Secret, its limits and readiness. */
export function appContainer(s: PlannedService, image: pulumi.Input<string>, envSecret: pulumi.Input<string>, src: ImageSource): Container {
  const probe = readinessProbe(s.health);
  return {
    name: s.name,
    image,
    imagePullPolicy: src.pullPolicy,
    // Docker's CMD is Kubernetes' args: the image's entrypoint still runs.
    ...(s.command ? { args: [...s.command] } : {}),
    envFrom: [{ secretRef: { name: envSecret } }],
    ...(s.port > 0 ? { ports: [{ name: "main", containerPort: s.port }] } : {}),
    resources: resources(s),
    ...(probe ? { readinessProbe: probe } : {}),
    ...(isWorker(s) ? {} : { lifecycle: { preStop: { sleep: { seconds: PRE_STOP_SECONDS } } } }),
    securityContext: { allowPrivilegeEscalation: false },
  };
}

const WAIT_SECONDS = 120;

/** The wait, in the service's own runtime: each host:port accepting a TCP connection, for up to WAIT_SECONDS. */
function waitCommand(type: PlannedService["type"], targets: [string, number][]): string[] | undefined {
  const list = JSON.stringify(targets);
  if (type === "fastapi") {
    return [
      "python3",
      "-c",
      `import socket, sys, time\nend = time.time() + ${WAIT_SECONDS}\nfor h, p in ${list}:\n    while True:\n        try:\n            socket.create_connection((h, p), 2).close(); break\n        except OSError:\n            if time.time() > end: sys.exit(f"{h}:{p} does not answer")\n            time.sleep(0.5)`,
    ];
  }
  if (type === "nextjs") {
    return [
      "node",
      "-e",
      `const net = require("node:net"); const end = Date.now() + ${WAIT_SECONDS * 1000};
const up = (h, p) => new Promise((r) => { const c = net.connect(p, h, () => { c.destroy(); r(true); }); c.on("error", () => r(false)); c.setTimeout(2000, () => { c.destroy(); r(false); }); });
(async () => { for (const [h, p] of ${list}) { while (!(await up(h, p))) { if (Date.now() > end) { console.error(h + ":" + p + " does not answer"); process.exit(1); } await new Promise((r) => setTimeout(r, 500)); } } })();`,
    ];
  }
  return undefined;
}

/**
 * Before a pod of a service starts (or its migration runs): its dependencies' Services answer.
 * A Service made a moment ago (a first deploy, a redeploy after destroy) gets its address at
 * once, but kube-proxy routes it only on its next sync; a migration that connected in that gap
 * failed the deploy. Docker has no such gap, so this exists only here.
 */
export function dependencyWait(plan: Plan, s: PlannedService, image: pulumi.Input<string>, src: ImageSource): Container[] {
  // A worker dependency has no port to wait for: its own rollout was awaited before this one.
  const deps = s.dependsOn.map((d) => plan.services.find((x) => x.name === d)).filter((d): d is PlannedService => !!d && d.port > 0);
  // A worker built from source has the FastAPI recipe's Python; one from a Dockerfile may have neither runtime.
  const runtime = s.type === "worker" && s.build?.kind === "recipe" ? "fastapi" : s.type;
  const command = deps.length
    ? waitCommand(
        runtime,
        deps.map((d) => [serviceHost(d, namespaceName(plan)), d.port]),
      )
    : undefined;
  return command
    ? [
        {
          name: "wait-for-dependencies",
          image,
          imagePullPolicy: src.pullPolicy,
          command,
          resources: resources(s),
          securityContext: { allowPrivilegeEscalation: false },
        },
      ]
    : [];
}

const DATABASE_CA_VOLUME = "database-ca";

/**
 * The stack's database CA, from its ConfigMap, where the service's PGSSLROOTCERT and
 * NODE_EXTRA_CA_CERTS name it: a volume for the pod and a read-only mount for its container.
 * Nothing for a service that references no database.
 */
export function databaseCaMount(
  s: PlannedService,
  caConfigMap: pulumi.Input<string> | undefined,
): { volumes: k8s.types.input.core.v1.Volume[]; mounts: k8s.types.input.core.v1.VolumeMount[] } {
  const file = s.databaseCaFile;
  if (!file || !caConfigMap) return { volumes: [], mounts: [] };
  return {
    volumes: [{ name: DATABASE_CA_VOLUME, configMap: { name: caConfigMap, items: [{ key: "ca.crt", path: basename(file) }] } }],
    mounts: [{ name: DATABASE_CA_VOLUME, mountPath: dirname(file), readOnly: true }],
  };
}

export function podSpec(s: PlannedService, container: Container, src: ImageSource, initContainers: Container[] = []): PodSpec {
  return {
    ...(initContainers.length ? { initContainers } : {}),
    containers: [container],
    ...pullSecretsOf(src),
    // A worker gets its whole grace after SIGTERM (no preStop pause): the job in hand finishes.
    terminationGracePeriodSeconds: s.stopGraceSeconds + (isWorker(s) ? 0 : PRE_STOP_SECONDS),
    enableServiceLinks: false,
  };
}

/** A stateless service: replaced one pod at a time, never below one ready pod (maxUnavailable 0). */
export function deploymentSpec(
  plan: Plan,
  s: PlannedService,
  container: Container,
  src: ImageSource,
  caConfigMap?: pulumi.Input<string>,
): k8s.types.input.apps.v1.DeploymentSpec {
  const ca = databaseCaMount(s, caConfigMap);
  const withCa = ca.mounts.length ? { ...container, volumeMounts: ca.mounts } : container;
  const pod = podSpec(s, withCa, src, dependencyWait(plan, s, container.image as pulumi.Input<string>, src));
  const spread = spreadAcrossNodes(s);
  return {
    // A scaled service's count is its autoscaler's (autoscale.ts): set here, every deploy would reset it.
    ...(s.scale ? {} : { replicas: s.replicas ?? 1 }),
    selector: { matchLabels: selectorLabels(s) },
    strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
    // Old ReplicaSets are what a failed rollout falls back to; a few are enough.
    revisionHistoryLimit: 3,
    // A worker has no readiness check: "running" counts once it has kept running this long, so a
    // crash at start never becomes available and the old pod is kept (Docker's settle time).
    minReadySeconds: isWorker(s) ? WORKER_SETTLE_SECONDS : 0,
    template: {
      metadata: { labels: podLabels(plan, s) },
      spec: { ...pod, ...(ca.volumes.length ? { volumes: ca.volumes } : {}), ...spread },
    },
  };
}

/**
 * Replicas spread over the nodes (one node's loss or drain takes at most its share), as a
 * preference: a one-node cluster still runs them all. None for one pod (its spec is as before).
 * Counted within one revision (`matchLabelKeys: pod-template-hash`): during a rollout the old
 * pods, about to go, would otherwise pull the new ones all onto the other node.
 */
function spreadAcrossNodes(s: PlannedService): Pick<PodSpec, "topologySpreadConstraints"> {
  if (!mayRunMany(s)) return {};
  return {
    topologySpreadConstraints: [
      {
        maxSkew: 1,
        topologyKey: "kubernetes.io/hostname",
        whenUnsatisfiable: "ScheduleAnyway",
        labelSelector: { matchLabels: selectorLabels(s) },
        matchLabelKeys: ["pod-template-hash"],
      },
    ],
  };
}

/** More than one pod, now (replicas) or under load (scale.max). */
const mayRunMany = (s: PlannedService) => (s.scale?.max ?? s.replicas ?? 1) > 1;

/** Voluntary evictions (a node drain) leave all replicas but one running: set only for replicated (or scaled) services. */
export function disruptionBudgetSpec(s: PlannedService): k8s.types.input.policy.v1.PodDisruptionBudgetSpec | undefined {
  if (!mayRunMany(s)) return undefined;
  return { maxUnavailable: 1, selector: { matchLabels: selectorLabels(s) } };
}

export function serviceSpec(s: PlannedService): k8s.types.input.core.v1.ServiceSpec {
  return { type: "ClusterIP", selector: selectorLabels(s), ports: [{ name: "main", port: s.port, targetPort: s.port, protocol: "TCP" }] };
}

/**
 * A migration: one pod of the new image with the service's variables, never retried (a failed
 * migration is reported, not repeated), killed at platform.yml's timeout.
 */
export function migrateJobSpec(
  plan: Plan,
  s: PlannedService,
  image: pulumi.Input<string>,
  envSecret: pulumi.Input<string>,
  src: ImageSource,
  caConfigMap?: pulumi.Input<string>,
): k8s.types.input.batch.v1.JobSpec {
  const m = s.migrate!;
  const wait = dependencyWait(plan, s, image, src);
  const ca = databaseCaMount(s, caConfigMap);
  return {
    backoffLimit: 0,
    activeDeadlineSeconds: m.timeoutSeconds,
    template: {
      // Never the selector labels: the Service would send requests to a migration's pod.
      metadata: { labels: { ...stackLabels(plan, s), "platform.step": "migrate" } },
      spec: {
        restartPolicy: "Never",
        enableServiceLinks: false,
        ...pullSecretsOf(src),
        ...(wait.length ? { initContainers: wait } : {}),
        ...(ca.volumes.length ? { volumes: ca.volumes } : {}),
        containers: [
          {
            name: "migrate",
            image,
            imagePullPolicy: src.pullPolicy,
            command: [...m.command],
            envFrom: [{ secretRef: { name: envSecret } }],
            ...(ca.mounts.length ? { volumeMounts: ca.mounts } : {}),
            resources: resources(s),
            securityContext: { allowPrivilegeEscalation: false },
          },
        ],
      },
    },
  };
}

/** How long a Deployment's rollout is awaited (a worker's first crash fails it sooner: WorkerRollout). */
export function rolloutTimeoutSeconds(s: PlannedService): number {
  return s.healthTimeoutSeconds + 60;
}

/** Pulumi's wait for a step, from platform.yml instead of the provider's 10 minutes. */
export function timeouts(seconds: number): pulumi.CustomTimeouts {
  return { create: `${seconds}s`, update: `${seconds}s` };
}
