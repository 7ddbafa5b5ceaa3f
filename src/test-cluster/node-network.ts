import { existsSync, mkdirSync, readdirSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import { ExitCode, VisibleError } from "../errors.js";
import { runTool } from "./exec.js";
import { SERVICE_WITHOUT_ENDPOINTS, setRule } from "./host.js";
import { NETWORK } from "./layout.js";
import { netnsPath, type NodeSpec } from "./nodes.js";

/**
 * The host's side of the nodes after the first (nodes.ts): each one's network namespace, the
 * veth pair to the host, the routes between the pod ranges, the forwarding rules, and the
 * cgroup its kubelet puts its pods under. Everything here is idempotent: `up` runs it on
 * every start, `removeNodeNetwork` undoes it.
 */

async function ip(args: string[], o: { allowFail?: boolean } = {}): Promise<number> {
  const r = await runTool("ip", args, { what: "ip (apt-get install iproute2)", allowFail: true });
  if (r.code !== 0 && !o.allowFail) {
    throw new VisibleError(`ip ${args.join(" ")} failed: ${r.stderr.trim()}`, { exitCode: ExitCode.environment });
  }
  return r.code;
}

/** Tools run inside a node's namespace (`ip netns exec`: sysctl, iptables). */
function inNetns(node: NodeSpec, cmd: string, args: string[]) {
  return runTool("ip", ["netns", "exec", (node.netns as { name: string }).name, cmd, ...args], { allowFail: true });
}

/**
 * The first node's bridge, made before its first pod: the nodes in namespaces reach the API
 * server and the registry at its address, which must not wait for a pod of the first node.
 * The CNI bridge plugin adopts a bridge that exists.
 */
export async function ensureFirstBridge(): Promise<void> {
  if ((await ip(["link", "show", NETWORK.bridge], { allowFail: true })) !== 0) await ip(["link", "add", NETWORK.bridge, "type", "bridge"]);
  await ip(["addr", "replace", `${NETWORK.bridgeGateway}/24`, "dev", NETWORK.bridge]);
  await ip(["link", "set", NETWORK.bridge, "up"]);
}

/** Host rules of one node's link: forwarded both ways (with Docker running, FORWARD's policy is DROP). */
function linkRules(node: NodeSpec): string[][] {
  const veth = node.netns?.hostVeth as string;
  const comment = ["-m", "comment", "--comment", `platform test cluster: node ${node.name}`, "-j", "ACCEPT"];
  return [
    ["-i", veth, ...comment],
    ["-o", veth, ...comment],
  ];
}

/** The cgroup (v1 hierarchies, or the unified one) a node's kubelet puts its pods under: `cgroupRoot` of its configuration. */
export function nodeCgroupRoot(node: NodeSpec): string {
  return `/${node.netns?.name ?? "kubepods"}`;
}

function cgroupDirs(node: NodeSpec): string[] {
  const base = "/sys/fs/cgroup";
  if (existsSync(join(base, "cgroup.controllers"))) return [join(base, nodeCgroupRoot(node))];
  return readdirSync(base)
    .map((h) => join(base, h))
    .filter((d) => existsSync(join(d, "cgroup.procs")))
    .map((d) => join(d, nodeCgroupRoot(node)));
}

/** Makes (or checks) the namespace, the link, the routes, the sysctls, the rules and the cgroups of a node. */
export async function ensureNodeNetwork(node: NodeSpec): Promise<void> {
  const ns = node.netns;
  if (!ns) return;
  await ensureFirstBridge();
  if (!existsSync(netnsPath(ns.name))) await ip(["netns", "add", ns.name]);
  if ((await ip(["link", "show", ns.hostVeth], { allowFail: true })) !== 0) {
    await ip(["link", "add", ns.hostVeth, "type", "veth", "peer", "name", ns.nodeVeth, "netns", ns.name]);
  }
  await ip(["addr", "replace", `${ns.hostIp}/30`, "dev", ns.hostVeth]);
  await ip(["link", "set", ns.hostVeth, "up"]);
  await ip(["-n", ns.name, "link", "set", "lo", "up"]);
  await ip(["-n", ns.name, "addr", "replace", `${node.ip}/30`, "dev", ns.nodeVeth]);
  await ip(["-n", ns.name, "link", "set", ns.nodeVeth, "up"]);
  await ip(["-n", ns.name, "route", "replace", "default", "via", ns.hostIp]);
  await ip(["route", "replace", node.podCidr, "via", node.ip, "dev", ns.hostVeth]);
  // Per namespace: forwarding, and bridged pod traffic through its own iptables (kube-proxy's rules).
  const sysctl = await inNetns(node, "sysctl", ["-qw", "net.ipv4.ip_forward=1", "net.bridge.bridge-nf-call-iptables=1"]);
  if (sysctl.code !== 0)
    throw new VisibleError(`cannot set the node ${node.name}'s sysctls: ${sysctl.stderr.trim()}`, { exitCode: ExitCode.environment });
  for (const spec of linkRules(node)) await setRule(true, "FORWARD", spec);
  // Inside the node, what the host's rules do for the first node's pods (host.ts): a Service
  // without endpoints is refused in its own FORWARD, before the packet leaves by its default route.
  const nsIptables = (args: string[]) => inNetns(node, "iptables", args);
  await nsIptables(["-w", "-N", "CNI-ADMIN"]);
  await setRule(true, "CNI-ADMIN", SERVICE_WITHOUT_ENDPOINTS, nsIptables);
  for (const d of cgroupDirs(node)) mkdirSync(d, { recursive: true });
}

/** Removes a node's namespace (its end of the link goes with it, the host's end and the route too), its rules and its cgroups. */
export async function removeNodeNetwork(node: NodeSpec): Promise<void> {
  const ns = node.netns;
  if (!ns) return;
  for (const spec of linkRules(node)) await setRule(false, "FORWARD", spec);
  if (existsSync(netnsPath(ns.name))) await ip(["netns", "del", ns.name], { allowFail: true });
  await ip(["link", "del", ns.hostVeth], { allowFail: true });
  for (const d of cgroupDirs(node)) removeCgroup(d);
}

/** A cgroup's empty children first (the kubelet's kubepods tree), then itself; one still in use stays. */
function removeCgroup(dir: string): void {
  if (!existsSync(dir)) return;
  for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) removeCgroup(join(dir, e.name));
  try {
    rmdirSync(dir);
  } catch {
    /* busy: a process still in it */
  }
}
