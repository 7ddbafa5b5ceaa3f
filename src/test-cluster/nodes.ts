import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ClusterLayout, NETWORK } from "./layout.js";

/**
 * The test cluster's nodes. The first is this machine itself (host network, the pod bridge
 * on the host, InternalIP 127.0.0.1). Each further node is a kubelet with its own containerd
 * and kube-proxy in a network namespace of its own, joined to the same control plane: a veth
 * pair links it to the host, which routes each node's pod range to it, so pods reach each
 * other, Services and the API server across nodes, and the host (the edge, the front door,
 * metrics-server) reaches every pod.
 */
export interface NodeSpec {
  /** 1 for the host's own node. */
  readonly index: number;
  readonly name: string;
  /** This node's share of the pod range, and the address its bridge has there. */
  readonly podCidr: string;
  readonly gateway: string;
  /** Where the API server, metrics-server and the health checks reach its kubelet and kube-proxy. */
  readonly ip: string;
  /** Nodes after the first: their network namespace and the link to the host. */
  readonly netns?: {
    readonly name: string;
    /** The host's end of the veth pair, and its address (the node's default gateway). */
    readonly hostVeth: string;
    readonly hostIp: string;
    /** The node's end, inside its namespace. */
    readonly nodeVeth: string;
  };
}

export const MAX_NODES = 4;

/** Where `ip netns` keeps a node's network namespace. */
export const netnsPath = (name: string) => `/run/netns/${name}`;

/**
 * Node N (N ≥ 2): pods in 10.244.(N-1).0/24, the link in a /30 of 10.244.255.0/24. The link
 * lies inside the cluster's pod range on purpose: the API server's firewall rule (host.ts)
 * admits the pod range, and kube-proxy treats the node's own traffic as the cluster's.
 */
export function nodeSpec(index: number): NodeSpec {
  if (index === 1) {
    return { index, name: NETWORK.nodeName, podCidr: NETWORK.nodePodCidr, gateway: NETWORK.bridgeGateway, ip: "127.0.0.1" };
  }
  const base = 4 * (index - 2);
  return {
    index,
    name: `${NETWORK.nodeName}-${index}`,
    podCidr: `10.244.${index - 1}.0/24`,
    gateway: `10.244.${index - 1}.1`,
    ip: `10.244.255.${base + 2}`,
    netns: { name: `platform-node-${index}`, hostVeth: `pk-node-${index}`, hostIp: `10.244.255.${base + 1}`, nodeVeth: "eth0" },
  };
}

/** Nodes 1..count. */
export function clusterNodes(count: number): NodeSpec[] {
  return Array.from({ length: count }, (_, i) => nodeSpec(i + 1));
}

/** The nodes after the first, up to MAX_NODES: what `down` looks for, however many `up` was last given. */
export function allExtraNodes(): NodeSpec[] {
  return clusterNodes(MAX_NODES).slice(1);
}

/**
 * A node's own files and runtime directory; the first node keeps the layout's. `dir` is the
 * node's own (what `down` unmounts under); the PKI, kubeconfigs, pids and logs are shared
 * (each component's name carries its node's).
 */
export function nodeLayout(l: ClusterLayout, node: NodeSpec): ClusterLayout {
  if (!node.netns) return l;
  const dir = join(l.dir, "nodes", node.name);
  const runtime = `${l.runtime}-${node.index}`;
  return {
    ...l,
    dir,
    config: join(dir, "config"),
    cniConfDir: join(dir, "config", "cni"),
    cniIpamDir: join(dir, "cni-ipam"),
    containerdRoot: join(dir, "containerd"),
    kubeletRoot: join(dir, "kubelet"),
    podLogs: join(dir, "pod-logs"),
    registryHosts: join(dir, "config", "registry-hosts"),
    runtime,
    containerdSocket: join(runtime, "containerd.sock"),
  };
}

/** Component names: the first node's keep their plain names (`kubelet`), the others carry the node's (`kubelet-platform-2`). */
export function nodeComponentName(base: string, node: NodeSpec): string {
  return node.netns ? `${base}-${node.name}` : base;
}

/** Where the kubelet and kube-proxy of a node find the API server: a node in a namespace reaches the host at the first node's bridge address. */
export function apiServerFor(node: NodeSpec, port: number): string {
  return `https://${node.netns ? NETWORK.bridgeGateway : "127.0.0.1"}:${port}`;
}

const countFile = (l: ClusterLayout) => join(l.dir, "nodes.json");

/** The node count as `up` was last given it (`--nodes`): undefined keeps the saved one (1 at first). */
export function nodeCount(l: ClusterLayout, given?: number): number {
  if (given !== undefined) {
    writeFileSync(countFile(l), JSON.stringify({ nodes: given }));
    return given;
  }
  try {
    const n = (JSON.parse(readFileSync(countFile(l), "utf8")) as { nodes?: unknown }).nodes;
    return typeof n === "number" && Number.isInteger(n) && n >= 1 && n <= MAX_NODES ? n : 1;
  } catch {
    return 1;
  }
}
