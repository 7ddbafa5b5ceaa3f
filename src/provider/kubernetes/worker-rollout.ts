import type { ResourceHandler } from "../handler.js";
import { diagnosisLine } from "../contract/diagnose-start.js";
import { kubectlOn } from "./kubectl.js";
import type { WorkerRolloutInputs } from "../contract/kubernetes-inputs.js";

export type { WorkerRolloutInputs };

interface PodJson {
  metadata: { name: string; labels?: Record<string, string>; deletionTimestamp?: string };
  status: {
    containerStatuses?: {
      restartCount: number;
      state?: { terminated?: { exitCode: number } };
      lastState?: { terminated?: { exitCode: number } };
    }[];
  };
}

function kubectl(i: WorkerRolloutInputs, args: string[]): Promise<string> {
  return kubectlOn(i.kubeconfig, ["-n", i.namespace, ...args]);
}

const UNREADABLE = /^unable to retrieve container logs/m;

/** The crashed container's last lines: its previous run, else the current one (the kubelet may be swapping them). */
async function lastLines(i: WorkerRolloutInputs, pod: string): Promise<string> {
  for (const previous of [true, false]) {
    const out = (await kubectl(i, ["logs", pod, ...(previous ? ["--previous"] : []), "--tail=20"]).catch(() => "")).trimEnd();
    if (out && !UNREADABLE.test(out)) return out;
  }
  return "";
}

/**
 * Done (true) when every pod is of the new template and available (minReadySeconds: kept
 * running); a crash of a new pod fails it at once, with its log. Old pods are the previous
 * ReplicaSet's: the controller stops them only once the new one is available.
 */
export async function checkRollout(i: WorkerRolloutInputs): Promise<boolean> {
  const d = JSON.parse(await kubectl(i, ["get", "deployment", i.name, "-o", "json"])) as {
    metadata: { annotations?: Record<string, string> };
    spec: { replicas?: number; selector: { matchLabels: Record<string, string> } };
    status: { observedGeneration?: number; replicas?: number; updatedReplicas?: number; availableReplicas?: number };
  };
  if ((d.status.observedGeneration ?? 0) < i.generation) return false;
  const revision = d.metadata.annotations?.["deployment.kubernetes.io/revision"];
  const selector = Object.entries(d.spec.selector.matchLabels).map(([k, v]) => `${k}=${v}`);
  const sets = JSON.parse(await kubectl(i, ["get", "replicasets", "-l", selector.join(","), "-o", "json"])) as {
    items: { metadata: { annotations?: Record<string, string>; labels?: Record<string, string> } }[];
  };
  const hash = sets.items.find((r) => r.metadata.annotations?.["deployment.kubernetes.io/revision"] === revision)?.metadata.labels?.[
    "pod-template-hash"
  ];
  if (hash) {
    const pods = JSON.parse(
      await kubectl(i, ["get", "pods", "-l", [...selector, `pod-template-hash=${hash}`].join(","), "-o", "json"]),
    ) as {
      items: PodJson[];
    };
    const crashed = pods.items.find((p) => p.status.containerStatuses?.some((c) => c.restartCount > 0 || c.state?.terminated));
    if (crashed) {
      const c = crashed.status.containerStatuses?.[0];
      const code = c?.state?.terminated?.exitCode ?? c?.lastState?.terminated?.exitCode;
      const log = await lastLines(i, crashed.metadata.name);
      throw new Error(
        `${i.name}: pod ${crashed.metadata.name} exited with code ${code ?? "?"} before it was healthy (a worker must keep running); the previous pods keep running${log ? `\n${diagnosisLine(log, { service: i.name })}${log}` : ""}`,
      );
    }
  }
  const want = d.spec.replicas ?? 1;
  return (d.status.updatedReplicas ?? 0) >= want && (d.status.availableReplicas ?? 0) >= want && (d.status.replicas ?? 0) <= want;
}

/**
 * platform:kubernetes:WorkerRollout: the wait for a worker's rollout. Pulumi's own wait for a
 * Deployment takes a crash loop for a warning and waits out its timeout; a worker's health is
 * "running", so its first crash fails the deploy here, in seconds, with the container's last lines.
 */
export const workerRolloutHandler: ResourceHandler = {
  inputKeys: ["namespace", "name", "generation"],

  async create(_urn, inputs) {
    const i = inputs as unknown as WorkerRolloutInputs;
    const until = Date.now() + i.timeoutSeconds * 1000;
    while (!(await checkRollout(i))) {
      if (Date.now() > until)
        throw new Error(`${i.name}: its rollout did not finish within ${i.timeoutSeconds}s; the previous pods keep running`);
      await new Promise((r) => setTimeout(r, 1000));
    }
    return { id: `${i.namespace}/${i.name}@${i.generation}`, outs: {} };
  },

  async read(_id, props) {
    return props;
  },

  async delete() {},
};
