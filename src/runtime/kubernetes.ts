import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { clusterLayout, readClusterToolchain } from "../test-cluster/layout.js";
import { ExitCode, VisibleError } from "../errors.js";
import type { LiveState, LogOptions } from "./target-runtime.js";
import { TELEMETRY_ROLE } from "../plan/constants.js";

/**
 * Live reads from the Kubernetes target: what runs per service, its logs, and the data a
 * destroy keeps. Through kubectl (the test cluster's, else the one on PATH) and the stack's
 * kubeconfig. A stack's objects carry the labels platform.project and platform.env.
 */
export interface KubeCluster {
  readonly project: string;
  readonly env: string;
  readonly kubeconfig: string;
}

export function kubectlBinary(): string {
  const tc = readClusterToolchain();
  return tc ? join(tc.binDir, "kubectl") : "kubectl";
}

/** The label selector of a stack's objects. */
export function stackSelector(t: Pick<KubeCluster, "project" | "env">): string {
  return `platform.project=${t.project},platform.env=${t.env}`;
}

/** kubectl's output; `input`, when given, is its standard input (a manifest for `-f -`). */
export function kubectl(t: KubeCluster, args: string[], stdio: "pipe" | "inherit" = "pipe", input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(kubectlBinary(), ["--kubeconfig", t.kubeconfig, ...args], {
      stdio: [input === undefined ? "ignore" : "pipe", stdio, stdio],
    });
    child.stdin?.end(input);
    let out = "";
    let err = "";
    child.stdout?.on("data", (d) => {
      out += d;
    });
    child.stderr?.on("data", (d) => {
      err += d;
    });
    child.on("error", (e) => reject(new VisibleError(`kubectl: ${e.message}`, { exitCode: ExitCode.environment })));
    child.on("close", (code) =>
      code === 0
        ? resolve(out)
        : reject(
            new VisibleError(`kubectl ${args[0]} failed (exit ${code})`, {
              exitCode: ExitCode.environment,
              details: err
                .trimEnd()
                .split("\n")
                .map((l) => `  ${l}`),
            }),
          ),
    );
  });
}

/**
 * kubectl with the terminal (a one-off command's input, output, raw mode): resolves with its
 * exit code, which for `run` and `exec` is the command's. Ctrl-C goes to kubectl, not to us.
 */
export function kubectlAttached(t: KubeCluster, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(kubectlBinary(), ["--kubeconfig", t.kubeconfig, ...args], { stdio: "inherit" });
    const ignore = () => undefined;
    process.on("SIGINT", ignore);
    child.on("error", (e) => reject(new VisibleError(`kubectl: ${e.message}`, { exitCode: ExitCode.environment })));
    child.on("close", (code, signal) => {
      process.off("SIGINT", ignore);
      resolve(code ?? (signal ? 128 + 15 : 1));
    });
  });
}

export interface Workload {
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec: { replicas?: number; template: { spec: PodSpecJson } };
  status?: { readyReplicas?: number; replicas?: number; updatedReplicas?: number };
}

/** The parts of a pod spec that `platform run` copies (kubectl's JSON). */
export interface PodSpecJson {
  containers: ({ name: string; image: string } & Record<string, unknown>)[];
  imagePullSecrets?: { name: string }[];
  volumes?: { name: string }[];
}

/** The services' Deployments and StatefulSets (the stack's telemetry receiver is none of them). */
export async function workloads(t: KubeCluster): Promise<Workload[]> {
  const out = await kubectl(t, [
    "get",
    "deployments,statefulsets",
    "--all-namespaces",
    "-l",
    `${stackSelector(t)},platform.role!=${TELEMETRY_ROLE}`,
    "-o",
    "json",
  ]);
  return (JSON.parse(out) as { items: Workload[] }).items;
}

/** Per service: running when a pod is ready, with `ready n/m`; and the image it runs. */
export async function kubeServices(t: KubeCluster): Promise<Map<string, LiveState & { image: string; kind: string }>> {
  const states = new Map<string, LiveState & { image: string; kind: string }>();
  for (const w of await workloads(t)) {
    const service = w.metadata.labels?.["platform.service"] ?? w.metadata.name;
    const ready = w.status?.readyReplicas ?? 0;
    const wanted = w.spec.replicas ?? 1;
    states.set(service, {
      running: ready > 0,
      detail: `${w.kind} ready ${ready}/${wanted}`,
      image: w.spec.template.spec.containers[0]?.image ?? "",
      kind: w.kind,
    });
  }
  return states;
}

export async function kubeLiveStates(t: KubeCluster): Promise<Map<string, LiveState>> {
  return kubeServices(t);
}

/** `platform logs` on Kubernetes: the service's pod (kubectl logs picks one of a Deployment's). */
export async function kubeLogs(t: KubeCluster, service: string, o: LogOptions): Promise<void> {
  const w = (await kubeServices(t)).get(service);
  if (!w)
    throw new VisibleError(`${service} is not deployed in ${t.project} (${t.env}): run platform deploy`, { exitCode: ExitCode.failed });
  const namespace = (await workloads(t)).find(
    (x) => (x.metadata.labels?.["platform.service"] ?? x.metadata.name) === service,
  ) as Workload & { metadata: { namespace?: string } };
  await kubectl(
    t,
    [
      "logs",
      "-n",
      namespace.metadata.namespace ?? "default",
      `${w.kind.toLowerCase()}/${service}`,
      ...(o.follow ? ["--follow"] : []),
      ...(o.sinceSeconds ? [`--since-time=${new Date(o.sinceSeconds * 1000).toISOString()}`] : []),
      ...(o.tail !== undefined ? [`--tail=${o.tail}`] : []),
    ],
    "inherit",
  );
}

/** The claims a destroy kept (retention: permanent), as namespace/name. */
export async function kubeKeptData(t: KubeCluster): Promise<string[]> {
  const out = await kubectl(t, [
    "get",
    "pvc",
    "--all-namespaces",
    "-l",
    stackSelector(t),
    "-o",
    'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}{"\\n"}{end}',
  ]);
  return out.split("\n").filter(Boolean);
}

/**
 * `destroy --delete-data`: the kept namespace with its claims, the test cluster's volumes, and
 * their hostPath directories. Claims go before volumes, or the delete hangs.
 */
export async function kubeDeleteData(t: KubeCluster): Promise<string[]> {
  const kept = await kubeKeptData(t);
  await kubectl(t, ["delete", "namespace", "-l", stackSelector(t), "--ignore-not-found", "--wait=true"]);
  await kubectl(t, ["delete", "pv", "-l", stackSelector(t), "--ignore-not-found", "--wait=true"]);
  for (const claim of kept) rmSync(join(clusterLayout().dir, "volumes", claim.split("/")[0] as string), { recursive: true, force: true });
  return kept;
}

/** The last lines of a service's newest failed migration pod: what a failed deploy shows. */
export async function kubeFailedMigrationLog(t: KubeCluster, service: string, lines = 20): Promise<string> {
  const out = await kubectl(t, [
    "get",
    "pods",
    "--all-namespaces",
    "-l",
    `${stackSelector(t)},platform.service=${service},platform.step=migrate`,
    "--field-selector",
    "status.phase=Failed",
    "--sort-by",
    ".metadata.creationTimestamp",
    "-o",
    'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}{"\\n"}{end}',
  ]);
  const newest = out.split("\n").filter(Boolean).pop();
  if (!newest) return "";
  const [namespace, pod] = newest.split("/") as [string, string];
  return (await kubectl(t, ["logs", "-n", namespace, pod, `--tail=${lines}`])).trimEnd();
}

/** A namespace's labels, or undefined when there is no such namespace. */
export async function kubeNamespaceLabels(t: KubeCluster, name: string): Promise<Record<string, string> | undefined> {
  const out = await kubectl(t, ["get", "namespace", name, "--ignore-not-found", "-o", "json"]);
  return out.trim() ? ((JSON.parse(out) as { metadata: { labels?: Record<string, string> } }).metadata.labels ?? {}) : undefined;
}

/** An IngressClass of the cluster: its name, and whether it is the cluster's default. */
export interface IngressClassInfo {
  readonly name: string;
  readonly isDefault: boolean;
}

export async function kubeIngressClasses(t: KubeCluster): Promise<IngressClassInfo[]> {
  const out = await kubectl(t, ["get", "ingressclasses.networking.k8s.io", "-o", "json"]);
  const items = (JSON.parse(out) as { items: { metadata: { name: string; annotations?: Record<string, string> } }[] }).items;
  return items.map((i) => ({
    name: i.metadata.name,
    isDefault: i.metadata.annotations?.["ingressclass.kubernetes.io/is-default-class"] === "true",
  }));
}

/** The cert-manager ClusterIssuers of the cluster; none when cert-manager is not installed. */
export async function kubeClusterIssuers(t: KubeCluster): Promise<string[]> {
  const crd = await kubectl(t, ["get", "crd", "clusterissuers.cert-manager.io", "--ignore-not-found", "-o", "name"]);
  if (!crd.trim()) return [];
  const out = await kubectl(t, ["get", "clusterissuers.cert-manager.io", "-o", "jsonpath={.items[*].metadata.name}"]);
  return out.split(/\s+/).filter(Boolean);
}

interface StorageClassJson {
  metadata: { name: string; annotations?: Record<string, string> };
}

/** Whether one of the classes is the cluster's default: what a claim naming no class gets. */
export function hasDefaultStorageClass(items: readonly StorageClassJson[]): boolean {
  const marks = ["storageclass.kubernetes.io/is-default-class", "storageclass.beta.kubernetes.io/is-default-class"];
  return items.some((i) => marks.some((m) => i.metadata.annotations?.[m] === "true"));
}

/** Whether the cluster of a kubeconfig provisions a claim that names no class (a default StorageClass). */
export async function kubeHasDefaultStorageClass(kubeconfig: string): Promise<boolean> {
  const out = await kubectl({ project: "", env: "", kubeconfig }, [
    "get",
    "storageclasses.storage.k8s.io",
    "-o",
    "json",
    "--request-timeout=20s",
  ]);
  return hasDefaultStorageClass((JSON.parse(out) as { items: StorageClassJson[] }).items);
}
