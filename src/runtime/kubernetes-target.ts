import { createHash } from "node:crypto";
import { join } from "node:path";
import { clusterLayout } from "../test-cluster/layout.js";
import { kubeCrashLog, kubeOneOff, kubeReadyPod } from "./kubernetes-run.js";
import { kubeCronRuns } from "./kubernetes-cron.js";
import { type KubeCluster, kubeDeleteData, kubeFailedMigrationLog, kubeKeptData, kubeLogs, kubeServices } from "./kubernetes.js";
import { streamKubeLogs } from "./kube-logs.js";
import { type KubePod, kubePods, kubePodUsage } from "./kube-pods.js";
import { prepareKubeDeploy } from "./kube-deploy.js";
import { kubeRecovery } from "./kube-recover.js";
import { copyKubeTelemetry } from "./kube-telemetry.js";
import type { ContainerDetails } from "./inspect.js";
import type { ServiceLive, TargetRuntime } from "./target-runtime.js";

/** A pod as Studio's details: its start, restarts and limits (Kubernetes has no pids limit per pod here). */
export function podDetails(p: KubePod): ContainerDetails {
  return {
    startedAt: p.startedAt,
    restartCount: p.restartCount,
    exitCode: 0,
    oomKilled: false,
    limits: { cpus: p.limits.cpus, memoryBytes: p.limits.memoryBytes, pids: null },
  };
}

/** The last lines of a failed migration Job's pod, else of a pod that crashed at start, per failed service. */
async function failureLogs(kube: KubeCluster, failed: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const service of failed) {
    const log = await kubeFailedMigrationLog(kube, service).catch(() => "");
    if (log) out.push(`${service}: its migration's last lines:`, ...log.split("\n").map((l) => `    ${l}`));
    // No failed migration: a pod that crashed at start (a worker that does not keep running).
    const crash = log ? "" : await kubeCrashLog(kube, service).catch(() => "");
    if (crash) out.push(`${service}: its last lines:`, ...crash.split("\n").map((l) => `    ${l}`));
  }
  return out;
}

/**
 * The Kubernetes target's runtime: the stack's workloads and pods in its cluster, through kubectl
 * and the stack's kubeconfig (objects labelled platform.project and platform.env).
 */
export function kubernetesRuntime(kube: KubeCluster, testCluster = false): TargetRuntime {
  const pods = () => kubePods(kube).catch(() => [] as KubePod[]);
  return {
    target: "kubernetes",
    project: kube.project,
    env: kube.env,
    words: {
      frontDoorLog: (ingressClass) =>
        testCluster
          ? `the front door's log says more: ${join(clusterLayout().logs, "traefik.log")} (the test cluster's Traefik)`
          : `the ingress controller's log says more: kubectl logs of its pods (kubectl get pods --all-namespaces names them${ingressClass ? `; its IngressClass is ${ingressClass}` : ""})`,
      countsCopies: false,
      copies: "pods",
      upgradesDatabases: false,
      cronScheduler: false,
    },
    prepareDeploy: (p) => prepareKubeDeploy(kube, testCluster, p),
    reachable: async () => undefined,
    liveStates: () => kubeServices(kube),
    async services() {
      const [services, all] = await Promise.all([kubeServices(kube), kubePods(kube)]);
      const out = new Map<string, ServiceLive>();
      for (const [name, state] of services) {
        const copies = all
          .filter((p) => p.service === name)
          .map((p) => ({
            container: p.name,
            state: p.ready ? "running" : p.state === "running" ? "starting" : p.state,
            status: `${p.status}, node ${p.node || "none yet"}`,
          }));
        out.set(name, { ...state, copies });
      }
      return out;
    },
    async instances() {
      const list = await pods();
      return list.map((p) => ({
        service: p.service,
        name: p.name,
        state: p.state,
        status: p.node ? `${p.status} · node ${p.node}` : p.status,
        image: p.image,
        replica: list.filter((x) => x.service === p.service).indexOf(p) + 1,
        details: async () => podDetails(p),
        redis: async () => undefined,
      }));
    },
    async runningServices() {
      return new Set([...(await kubeServices(kube))].filter(([, s]) => s.running).map(([name]) => name));
    },
    failureLogs: (failed) => failureLogs(kube, failed),
    printLogs: (service, o) => kubeLogs(kube, service, o),
    streamLogs: (q, onLine, onEnd) => streamKubeLogs(kube, q, onLine, onEnd),
    oneOff: (kind, service, command, tty) => kubeOneOff(kube, kind, service, [...command], tty),
    cronRuns: (n) => kubeCronRuns(kube, n),
    databaseHost: (service) => kubeReadyPod(kube, service),
    usage: async () => (await kubePodUsage(kube)).map((r) => ({ service: r.pod.service, usage: r.usage })),
    databaseRecovery: async (service) => kubeRecovery(kube, await kubeReadyPod(kube, service), service),
    keptData: () => kubeKeptData(kube),
    deleteData: () => kubeDeleteData(kube),
    telemetry: {
      key: `clusters/${createHash("sha256").update(`${kube.kubeconfig}\n${kube.project}\n${kube.env}`).digest("hex").slice(0, 16)}`,
      copy: (dir) => copyKubeTelemetry(kube, dir),
    },
  };
}
