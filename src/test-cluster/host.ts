import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ExitCode, VisibleError } from "../errors.js";
import { runTool, sleep } from "./exec.js";
import { type ClusterLayout, type ClusterToolchain, NETWORK, PORTS } from "./layout.js";
import { signal } from "./processes.js";

/** What the test cluster changes on the host, and how `down` undoes what pods leave behind. */

export function requireRoot(): void {
  if (process.getuid?.() !== 0) {
    throw new VisibleError(
      "the test cluster needs root (containerd, the kubelet and the pod network do): run platform cluster up as root, or use an existing cluster through its kubeconfig (docs/guide/kubernetes.md)",
      { exitCode: ExitCode.environment },
    );
  }
}

/**
 * Forwarding on, and bridged traffic through iptables so kube-proxy's rules see pod-to-Service
 * traffic on the bridge. Docker sets both too; without Docker they may be off.
 */
export async function prepareKernel(): Promise<void> {
  if (!existsSync("/proc/sys/net/bridge")) await runTool("modprobe", ["br_netfilter"], { allowFail: true }).catch(() => undefined);
  for (const [key, value] of [
    ["net/ipv4/ip_forward", "1"],
    ["net/bridge/bridge-nf-call-iptables", "1"],
  ] as const) {
    const file = `/proc/sys/${key}`;
    try {
      if (readFileSync(file, "utf8").trim() !== value) writeFileSync(file, value);
    } catch (e) {
      throw new VisibleError(`cannot set ${key.replaceAll("/", ".")}=${value} (${(e as Error).message}): pods could not reach Services`, {
        exitCode: ExitCode.environment,
      });
    }
  }
}

/**
 * Host firewall rules of the test cluster (filter table), added by `up`, removed by `down`:
 * - The API server and the registry listen on every address (see components.ts): drop what
 *   comes neither from this machine nor from a pod or a node (nodes.ts: their links lie in
 *   the pod range).
 * - A pod's packet to a Service address that is still a Service address in FORWARD was not
 *   translated: the Service has no endpoint (or kube-proxy is not there yet). kube-proxy's
 *   REJECT for that sits behind the CNI firewall plugin's ACCEPT for pod addresses, so
 *   without this the packet leaves by the default route (here a transparent proxy answered
 *   it with a 404). CNI-ADMIN is the plugin's chain for rules that come before its own.
 */
export const SERVICE_WITHOUT_ENDPOINTS = [
  "-s",
  NETWORK.podCidr,
  "-d",
  NETWORK.serviceCidr,
  "-m",
  "comment",
  "--comment",
  "platform test cluster: Service without endpoints",
  "-j",
  "REJECT",
  "--reject-with",
  "icmp-port-unreachable",
];

const RULES: { chain: string; spec: string[] }[] = [
  {
    chain: "INPUT",
    spec: [
      "-p",
      "tcp",
      "-m",
      "multiport",
      "--dports",
      `${PORTS.apiserver},${PORTS.registry}`,
      "!",
      "-s",
      NETWORK.podCidr,
      "-m",
      "addrtype",
      "!",
      "--src-type",
      "LOCAL",
      "-m",
      "comment",
      "--comment",
      "platform test cluster: API server and registry local only",
      "-j",
      "DROP",
    ],
  },
  { chain: "CNI-ADMIN", spec: SERVICE_WITHOUT_ENDPOINTS },
];

type Iptables = (args: string[]) => Promise<{ code: number; stderr: string }>;

const hostIptables: Iptables = (args) => runTool("iptables", args, { allowFail: true, what: "iptables (apt-get install iptables)" });

/** Adds (on) or removes one rule, at the top of its chain, once. `run`: iptables here, or in a node's namespace. */
export async function setRule(on: boolean, chain: string, spec: readonly string[], run: Iptables = hostIptables): Promise<void> {
  const present = (await run(["-w", "-C", chain, ...spec])).code === 0;
  if (on && !present) {
    const r = await run(["-w", "-I", chain, ...spec]);
    if (r.code !== 0)
      throw new VisibleError(`cannot add the firewall rule in ${chain}: ${r.stderr.trim()}`, { exitCode: ExitCode.environment });
  }
  if (!on && present) await run(["-w", "-D", chain, ...spec]);
}

export async function setHostRules(on: boolean): Promise<void> {
  if (on) await hostIptables(["-w", "-N", "CNI-ADMIN"]);
  for (const r of RULES) await setRule(on, r.chain, r.spec);
}

/**
 * Kills every container of the cluster's containerd (pods' processes included). containerd's
 * CRI plugin deletes a task itself once it has exited, so this waits for the list to empty and
 * deletes only what is still listed after that.
 */
export async function killAllTasks(l: ClusterLayout, tc: ClusterToolchain): Promise<number> {
  const ctr = (...args: string[]) =>
    runTool(tc.ctr, ["--address", l.containerdSocket, "-n", "k8s.io", ...args], { allowFail: true, timeoutMs: 30_000 });
  const list = async () =>
    (await ctr("tasks", "ls", "-q")).stdout
      .split("\n")
      .map((s) => s.trim())
      .filter(Boolean);
  const ids = await list();
  await Promise.all(ids.map((id) => ctr("tasks", "kill", "-a", "-s", "SIGKILL", id)));
  let left = ids;
  for (let i = 0; i < 50 && left.length; i++) {
    await sleep(100);
    left = await list();
  }
  await Promise.all(left.map((id) => ctr("tasks", "delete", "--force", id)));
  return ids.length;
}

/** Shims of our containerd that outlived it (found by the socket in their command line); dryRun only counts them. */
export function killOrphanShims(l: ClusterLayout, o: { dryRun?: boolean } = {}): number {
  let n = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
    } catch {
      continue;
    }
    if ((argv[0] ?? "").includes("containerd-shim") && argv.includes(l.containerdSocket)) {
      if (!o.dryRun) signal(Number(entry), "SIGKILL");
      n++;
    }
  }
  return n;
}

/** Mount points under our directories, deepest first (pods' volumes, rootfs, network namespaces). */
export function ourMounts(l: ClusterLayout): string[] {
  const roots = [l.dir, l.runtime].map((r) => (r.endsWith("/") ? r : `${r}/`));
  const points = readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[4])
    .filter((p): p is string => !!p)
    .map((p) => p.replace(/\\(\d{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))))
    .filter((p) => roots.some((r) => p.startsWith(r)));
  return [...new Set(points)].sort((a, b) => b.split("/").length - a.split("/").length || b.length - a.length);
}

/**
 * After every component has stopped: unmounts what pods left mounted (a lazy unmount, so a
 * busy mount never blocks), removes their network namespaces (their veths go with them) and
 * the IP allocations of pods that no longer exist, so the next `up` starts clean.
 */
export async function cleanUpPods(l: ClusterLayout): Promise<{ mounts: number; shims: number }> {
  const shims = killOrphanShims(l);
  const mounts = ourMounts(l);
  for (const m of mounts) await runTool("umount", ["-l", m], { allowFail: true });
  rmSync(join(l.runtime, "state", "io.containerd.grpc.v1.cri", "netns"), { recursive: true, force: true });
  rmSync(l.cniIpamDir, { recursive: true, force: true });
  return { mounts: mounts.length, shims };
}
