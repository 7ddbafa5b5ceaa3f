import { runTool, type ToolResult } from "./exec.js";
import { binary, type ClusterLayout, type ClusterToolchain, NETWORK } from "./layout.js";

/** The cluster's own kubectl on the admin kubeconfig: how `up` and `status` talk to the API. */
export function kubectl(
  l: ClusterLayout,
  tc: ClusterToolchain,
  args: string[],
  o: { input?: string; allowFail?: boolean; timeoutMs?: number } = {},
): Promise<ToolResult> {
  return runTool(binary(tc, "kubectl"), ["--kubeconfig", l.adminKubeconfig, "--request-timeout", "10s", ...args], {
    timeoutMs: o.timeoutMs ?? 30_000,
    ...o,
  });
}

async function getJson<T>(l: ClusterLayout, tc: ClusterToolchain, args: string[]): Promise<T | undefined> {
  const r = await kubectl(l, tc, ["get", ...args, "-o", "json"], { allowFail: true });
  return r.code === 0 ? (JSON.parse(r.stdout) as T) : undefined;
}

interface NodeJson {
  status?: { conditions?: { type: string; status: string; message?: string }[]; addresses?: { type: string; address: string }[] };
}

export interface NodeState {
  name: string;
  registered: boolean;
  ready: boolean;
  internalIp?: string;
  message?: string;
}

export async function readNode(l: ClusterLayout, tc: ClusterToolchain, name: string = NETWORK.nodeName): Promise<NodeState> {
  const node = await getJson<NodeJson>(l, tc, ["node", name]);
  const ready = node?.status?.conditions?.find((c) => c.type === "Ready");
  return {
    name,
    registered: !!node,
    ready: ready?.status === "True",
    internalIp: node?.status?.addresses?.find((a) => a.type === "InternalIP")?.address,
    message: ready?.message,
  };
}

/**
 * The kubelet refuses a loopback node IP and then reports no address at all; the API server
 * reaches kubelets (logs, exec, port-forward) at the InternalIP, which is 127.0.0.1 here.
 */
export async function patchNodeAddress(l: ClusterLayout, tc: ClusterToolchain): Promise<void> {
  const patch = {
    status: {
      addresses: [
        { type: "InternalIP", address: "127.0.0.1" },
        { type: "Hostname", address: NETWORK.nodeName },
      ],
    },
  };
  await kubectl(l, tc, ["patch", "node", NETWORK.nodeName, "--subresource=status", "--type=merge", "-p", JSON.stringify(patch)]);
}

interface DeploymentJson {
  spec?: { replicas?: number };
  status?: { readyReplicas?: number };
}

export async function deploymentReady(l: ClusterLayout, tc: ClusterToolchain, namespace: string, name: string): Promise<boolean> {
  const d = await getJson<DeploymentJson>(l, tc, ["deployment", name, "-n", namespace]);
  return !!d && (d.status?.readyReplicas ?? 0) >= Math.max(1, d.spec?.replicas ?? 1);
}

/** The controller-manager creates each namespace's `default` ServiceAccount; pods wait for it. */
export async function defaultServiceAccountExists(l: ClusterLayout, tc: ClusterToolchain): Promise<boolean> {
  return (await kubectl(l, tc, ["get", "serviceaccount", "default", "-n", "default"], { allowFail: true })).code === 0;
}

/** Why CoreDNS is not ready yet: its pods' phases and waiting reasons, for the timeout error. */
export async function describePods(l: ClusterLayout, tc: ClusterToolchain, namespace: string, selector: string): Promise<string[]> {
  const r = await kubectl(l, tc, ["get", "pods", "-n", namespace, "-l", selector, "-o", "wide"], { allowFail: true });
  const events = await kubectl(l, tc, ["get", "events", "-n", namespace, "--sort-by=.lastTimestamp"], { allowFail: true });
  return [...(r.stdout || r.stderr).trimEnd().split("\n"), ...events.stdout.trimEnd().split("\n").slice(-8)].map((s) => `  ${s}`);
}

interface PodListJson {
  items?: {
    status?: {
      conditions?: { type: string; status: string }[];
      containerStatuses?: { state?: { running?: { startedAt?: string } } }[];
    };
  }[];
}

/**
 * Every pod of a selector Ready with all its containers started at or after `sinceMs`. After
 * containerd restarts, the API still carries the pods' ready state of before the stop until the
 * kubelet reports again: only a start after the restart says they really run.
 */
export async function podsRunningSince(
  l: ClusterLayout,
  tc: ClusterToolchain,
  namespace: string,
  selector: string,
  sinceMs: number,
): Promise<boolean> {
  const list = await getJson<PodListJson>(l, tc, ["pods", "-n", namespace, "-l", selector]);
  const since = Math.floor(sinceMs / 1000) * 1000;
  const pods = list?.items ?? [];
  return (
    pods.length > 0 &&
    pods.every((p) => {
      const ready = p.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";
      const starts = (p.status?.containerStatuses ?? []).map((c) => Date.parse(c.state?.running?.startedAt ?? ""));
      return ready && starts.length > 0 && starts.every((t) => t >= since);
    })
  );
}
