import { join } from "node:path";
import { buildComponents } from "./components.js";
import { deploymentReady, readNode } from "./kubectl.js";
import { clusterLayout, readClusterToolchain } from "./layout.js";
import { extraNodeSpecs } from "./node-join.js";
import { clusterNodes, nodeCount } from "./nodes.js";
import { isHealthy, runningPid } from "./processes.js";

/** `platform cluster status`: each component, each node, CoreDNS. */
export interface ComponentStatus {
  name: string;
  pid: number | null;
  running: boolean;
  healthy: boolean;
  log: string;
}

export interface ClusterStatus {
  /** Everything running and answering, the node Ready and CoreDNS ready. */
  ready: boolean;
  toolchain: boolean;
  kubeconfig: string;
  components: ComponentStatus[];
  /** The first node (the host's). */
  node: NodeStatus | null;
  /** Every node, the first one first (`up --nodes`). */
  nodes: NodeStatus[];
  dns: { ready: boolean } | null;
}

export interface NodeStatus {
  name: string;
  registered: boolean;
  ready: boolean;
  internalIp: string | null;
}

export async function clusterStatus(): Promise<ClusterStatus> {
  const l = clusterLayout();
  const tc = readClusterToolchain();
  if (!tc) return { ready: false, toolchain: false, kubeconfig: l.adminKubeconfig, components: [], node: null, nodes: [], dns: null };
  const nodeSpecs = clusterNodes(nodeCount(l));
  const components = await Promise.all(
    [...buildComponents(l, tc), ...extraNodeSpecs(l, tc, nodeSpecs)].map(async (s): Promise<ComponentStatus> => {
      const pid = runningPid(l, s);
      return {
        name: s.name,
        pid: pid ?? null,
        running: pid !== undefined,
        healthy: pid !== undefined && (await isHealthy(l, tc, s.health)),
        log: join(l.logs, `${s.name}.log`),
      };
    }),
  );
  const api = components.find((c) => c.name === "kube-apiserver")?.healthy;
  const nodes = api
    ? (await Promise.all(nodeSpecs.map((s) => readNode(l, tc, s.name)))).map(
        (n): NodeStatus => ({ name: n.name, registered: n.registered, ready: n.ready, internalIp: n.internalIp ?? null }),
      )
    : [];
  const dns = api ? { ready: await deploymentReady(l, tc, "kube-system", "coredns") } : null;
  const ready = components.every((c) => c.healthy) && nodes.length > 0 && nodes.every((n) => n.ready) && !!dns?.ready;
  return { ready, toolchain: true, kubeconfig: l.adminKubeconfig, components, node: nodes[0] ?? null, nodes, dns };
}
