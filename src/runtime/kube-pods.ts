import { TELEMETRY_ROLE } from "../plan/constants.js";
import { type KubeCluster, kubectl, stackSelector } from "./kubernetes.js";
import type { Usage } from "./stats.js";

/**
 * The pods of a stack's services on Kubernetes (each replica, for status and Studio), and their
 * CPU and memory from the metrics.k8s.io API (metrics-server): what Docker's container list and
 * stats give on the Docker target. Migration and cron Jobs' pods, `platform run`'s, and the
 * telemetry receiver's are left out.
 */
export interface KubePod {
  readonly namespace: string;
  readonly name: string;
  readonly service: string;
  /** running, pending, terminating, failed... */
  readonly state: string;
  /** `Running, ready 1/1` or the waiting reason (`CrashLoopBackOff`). */
  readonly status: string;
  readonly ready: boolean;
  readonly image: string;
  readonly node: string;
  readonly startedAt: string;
  readonly restartCount: number;
  readonly limits: { cpus: number | null; memoryBytes: number | null };
}

interface PodJson {
  metadata: {
    name: string;
    namespace: string;
    labels?: Record<string, string>;
    deletionTimestamp?: string;
    ownerReferences?: { kind: string }[];
  };
  spec: { nodeName?: string; containers: { image: string; resources?: { limits?: { cpu?: string; memory?: string } } }[] };
  status: {
    phase?: string;
    startTime?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { ready: boolean; restartCount: number; state?: { waiting?: { reason?: string } } }[];
  };
}

/** A CPU quantity (`250m`, `1`, `123456789n`, `5u`) in CPUs. */
export function parseCpu(q: string): number {
  const m = /^([0-9.]+)([num]?)$/.exec(q.trim());
  if (!m) return Number.NaN;
  const scale = { n: 1e-9, u: 1e-6, m: 1e-3, "": 1 }[m[2] as "n" | "u" | "m" | ""];
  return Number(m[1]) * scale;
}

/** A memory quantity (`128Mi`, `1Gi`, `64974Ki`, `1G`, `512`) in bytes. */
export function parseBytes(q: string): number {
  const m = /^([0-9.]+)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(q.trim());
  if (!m) return Number.NaN;
  const units: Record<string, number> = { Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };
  return Math.round(Number(m[1]) * (m[2] ? (units[m[2]] as number) : 1));
}

/** One pod as Studio lists it; undefined for a pod that serves no service (a Job's, a one-off's). */
export function toKubePod(p: PodJson): KubePod | undefined {
  const service = p.metadata.labels?.["platform.service"];
  if (!service || p.metadata.labels?.["platform.role"] === TELEMETRY_ROLE) return undefined;
  if (p.metadata.ownerReferences?.some((o) => o.kind === "Job")) return undefined;
  const statuses = p.status.containerStatuses ?? [];
  const ready = p.status.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
  const phase = (p.status.phase ?? "Unknown").toLowerCase();
  const state = p.metadata.deletionTimestamp ? "terminating" : phase;
  const waiting = statuses.map((s) => s.state?.waiting?.reason).find(Boolean);
  const readyCount = statuses.filter((s) => s.ready).length;
  const limits = p.spec.containers[0]?.resources?.limits;
  return {
    namespace: p.metadata.namespace,
    name: p.metadata.name,
    service,
    state,
    status: waiting ?? `${p.status.phase ?? "Unknown"}, ready ${readyCount}/${statuses.length || p.spec.containers.length}`,
    ready,
    image: p.spec.containers[0]?.image ?? "",
    node: p.spec.nodeName ?? "",
    startedAt: p.status.startTime ?? "",
    restartCount: statuses.reduce((n, s) => n + s.restartCount, 0),
    limits: {
      cpus: limits?.cpu ? parseCpu(limits.cpu) : null,
      memoryBytes: limits?.memory ? parseBytes(limits.memory) : null,
    },
  };
}

/** Studio reads every Kubernetes environment it lists: a cluster that does not answer must not hold a page. */
export const READ_TIMEOUT = "--request-timeout=10s";

/** The pods of the stack's services, by service then name. */
export async function kubePods(t: KubeCluster): Promise<KubePod[]> {
  const out = await kubectl(t, ["get", "pods", "--all-namespaces", "-l", stackSelector(t), "-o", "json", READ_TIMEOUT]);
  return (JSON.parse(out) as { items: PodJson[] }).items
    .map(toKubePod)
    .filter((p): p is KubePod => p !== undefined)
    .sort((a, b) => a.service.localeCompare(b.service) || a.name.localeCompare(b.name));
}

interface PodMetricsJson {
  metadata: { name: string; namespace: string };
  containers: { usage: { cpu: string; memory: string } }[];
}

/** metrics-server's answer as one reading per pod (percent of one CPU, working-set bytes), by namespace/name. */
export function toPodUsage(items: readonly PodMetricsJson[]): Map<string, Omit<Usage, "memoryLimitBytes">> {
  const out = new Map<string, Omit<Usage, "memoryLimitBytes">>();
  for (const m of items) {
    const cpu = m.containers.reduce((n, c) => n + (parseCpu(c.usage.cpu) || 0), 0);
    const mem = m.containers.reduce((n, c) => n + (parseBytes(c.usage.memory) || 0), 0);
    out.set(`${m.metadata.namespace}/${m.metadata.name}`, { cpuPercent: Math.round(cpu * 10000) / 100, memoryBytes: mem });
  }
  return out;
}

/**
 * CPU and memory of each running pod of the stack's services: a window metrics-server averaged
 * (it scrapes the kubelets every 15 s or so). Empty when the cluster has no metrics API.
 */
export async function kubePodUsage(t: KubeCluster): Promise<{ pod: KubePod; usage: Usage }[]> {
  const pods = (await kubePods(t)).filter((p) => p.state === "running");
  if (!pods.length) return [];
  const raw = await kubectl(t, [
    READ_TIMEOUT,
    "get",
    "--raw",
    `/apis/metrics.k8s.io/v1beta1/pods?labelSelector=${encodeURIComponent(stackSelector(t))}`,
  ]).catch(() => undefined);
  if (!raw) return [];
  const usage = toPodUsage((JSON.parse(raw) as { items?: PodMetricsJson[] }).items ?? []);
  return pods.flatMap((pod) => {
    const u = usage.get(`${pod.namespace}/${pod.name}`);
    return u ? [{ pod, usage: { ...u, memoryLimitBytes: pod.limits.memoryBytes } }] : [];
  });
}
