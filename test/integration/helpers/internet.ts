// A simulated "internet" for integration tests: a network namespace joined to the root
// namespace by a veth pair. A process inside the namespace plays a client somewhere on the
// internet; the root-side end of the veth plays the server's public address, where Docker's
// ports published on 0.0.0.0 answer (its PREROUTING DNAT matches any local address, and the
// FORWARD rules it adds per published port accept the flow; no iptables rule of ours needed).
//
// Addresses: one /30 per namespace inside 10.250.0.0/16 (.1 root side = serverAddress, .2
// namespace side = clientAddress). The namespace gets no default route, only the connected
// /30, so a client in it can reach nothing but serverAddress; the /30 is more specific than any
// route a host may have for 10.0.0.0/8, so the root side never sends that traffic elsewhere.
// IPv6 is off on both ends so the sandbox is exactly that one IPv4 /30.
//
// Needs root (CAP_NET_ADMIN) and iproute2's `ip`. Names carry the creating pid
// (namespace plt-inet-<pid>-<n>, root-side veth pi<pid>n<n>): a later run removes what a
// crashed run left, and never touches a live run's namespaces.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { promisify } from "node:util";

const execFileP = promisify(execFile);

export const INTERNET_PREFIX = "plt-inet-";
/** The range the /30s come from; documented so a host that routes it elsewhere can be spotted. */
export const INTERNET_RANGE = "10.250.0.0/16";
const HOST_IF_PREFIX = "pi"; // interface names have at most 15 characters: pi<pid>n<n>

export interface Internet {
  /** Network namespace name, for `ip netns exec`. */
  ns: string;
  /** Root-side end of the veth pair. */
  hostIf: string;
  /** The interface inside the namespace. */
  nsIf: "eth0";
  /** Root-side address: the server's "public" address, where Docker-published ports answer. */
  serverAddress: string;
  /** Namespace-side address: the client's address as the server sees it (no NAT on this path). */
  clientAddress: string;
  prefixLength: 30;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

let created = 0;

/** Runs a command; never throws on a non-zero exit (the caller checks `code`). Bounded in time. */
export async function run(file: string, args: string[], timeoutMs = 30_000): Promise<RunResult> {
  try {
    const { stdout, stderr } = await execFileP(file, args, { timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: 16 << 20 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number | string; stdout?: string; stderr?: string; message: string };
    if (err.code === "ENOENT") throw new Error(`${file} not found: the internet harness needs iproute2 (apt-get install iproute2)`);
    return { code: typeof err.code === "number" ? err.code : -1, stdout: err.stdout ?? "", stderr: err.stderr ?? err.message };
  }
}

async function ip(args: string[]): Promise<string> {
  const r = await run("ip", args);
  if (r.code !== 0) throw new Error(`ip ${args.join(" ")} failed: ${r.stderr.trim()}`);
  return r.stdout;
}

/** Whether a process of that pid exists (EPERM: it does, someone else's). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Our namespaces: names only (`ip netns list` may add "(id: N)"). */
async function listNamespaces(): Promise<string[]> {
  const out = await ip(["netns", "list"]);
  return out
    .split("\n")
    .map((l) => l.split(" ")[0] ?? "")
    .filter((n) => n.startsWith(INTERNET_PREFIX));
}

/** Kills what still runs inside a namespace of ours (it was started there by a test), so deleting it frees the veth. */
async function killInside(ns: string): Promise<void> {
  const r = await run("ip", ["netns", "pids", ns]);
  for (const pid of r.stdout.split(/\s+/).filter(Boolean).map(Number)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/** Removes one internet: processes inside, the namespace, the veth pair. Idempotent. */
export async function destroyInternet(net: Pick<Internet, "ns" | "hostIf">): Promise<void> {
  if ((await listNamespaces()).includes(net.ns)) {
    await killInside(net.ns);
    await run("ip", ["netns", "del", net.ns]);
  }
  // Deleting the namespace deletes both veth ends, unless a process kept it alive a moment longer.
  const link = await run("ip", ["link", "show", net.hostIf]);
  if (link.code === 0) await run("ip", ["link", "del", net.hostIf]);
}

/** Removes namespaces and veths of ours whose creating process is gone (crashed earlier runs). */
export async function cleanStaleInternets(): Promise<string[]> {
  const removed: string[] = [];
  for (const ns of await listNamespaces()) {
    const pid = Number(/^plt-inet-(\d+)-\d+$/.exec(ns)?.[1]);
    if (!pid || alive(pid)) continue;
    await destroyInternet({ ns, hostIf: "" });
    removed.push(ns);
  }
  const links = await ip(["-o", "link", "show", "type", "veth"]);
  for (const m of links.matchAll(/^\d+: (pi(\d+)n\d+)[@:]/gm)) {
    if (alive(Number(m[2]))) continue;
    await run("ip", ["link", "del", m[1]!]);
    removed.push(m[1]!);
  }
  return removed;
}

/** A free /30 in 10.250.0.0/16: none of its addresses may be on any interface already. */
async function freeBlock(): Promise<number> {
  const used = new Set<number>();
  for (const m of (await ip(["-4", "-o", "addr", "show"])).matchAll(/inet 10\.250\.(\d+)\.(\d+)\//g)) {
    used.add((Number(m[1]) * 256 + Number(m[2])) >> 2);
  }
  const start = (process.pid * 8 + created) % 16384; // spread concurrent runs apart
  for (let i = 0; i < 16384; i++) {
    const b = (start + i) % 16384;
    if (b !== 0 && !used.has(b)) return b;
  }
  throw new Error(`no free /30 left in ${INTERNET_RANGE}`);
}

function address(block: number, host: number): string {
  const n = block * 4 + host;
  return `10.250.${n >> 8}.${n & 255}`;
}

/** Creates a namespace with a veth to the root namespace and a /30 on it. Cleans stale ones first. */
export async function createInternet(): Promise<Internet> {
  if (process.getuid?.() !== 0) throw new Error("the internet harness needs root (network namespaces, veth pairs)");
  await cleanStaleInternets();
  const n = created++;
  const block = await freeBlock();
  const net: Internet = {
    ns: `${INTERNET_PREFIX}${process.pid}-${n}`,
    hostIf: `${HOST_IF_PREFIX}${process.pid}n${n}`,
    nsIf: "eth0",
    serverAddress: address(block, 1),
    clientAddress: address(block, 2),
    prefixLength: 30,
  };
  try {
    await ip(["netns", "add", net.ns]);
    // IPv6 off inside before the peer exists, so eth0 never gets a link-local address
    for (const key of ["all", "default"]) {
      const r = await run("ip", ["netns", "exec", net.ns, "sh", "-c", `echo 1 > /proc/sys/net/ipv6/conf/${key}/disable_ipv6`]);
      if (r.code !== 0) throw new Error(`disabling IPv6 in ${net.ns}: ${r.stderr.trim()}`);
    }
    // One command creates both ends, the peer already inside: no half-made pair on a crash.
    await ip(["link", "add", net.hostIf, "type", "veth", "peer", "name", net.nsIf, "netns", net.ns]);
    writeFileSync(`/proc/sys/net/ipv6/conf/${net.hostIf}/disable_ipv6`, "1");
    await ip(["addr", "add", `${net.serverAddress}/30`, "dev", net.hostIf]);
    await ip(["link", "set", net.hostIf, "up"]);
    await ip(["-n", net.ns, "addr", "add", `${net.clientAddress}/30`, "dev", net.nsIf]);
    await ip(["-n", net.ns, "link", "set", net.nsIf, "up"]);
    await ip(["-n", net.ns, "link", "set", "lo", "up"]);
  } catch (e) {
    await destroyInternet(net);
    throw e;
  }
  return net;
}

/** Runs a command inside the namespace (`ip netns exec`), bounded in time; never throws on a non-zero exit. */
export function runInInternet(net: Internet, file: string, args: string[], timeoutMs = 30_000): Promise<RunResult> {
  return run("ip", ["netns", "exec", net.ns, file, ...args], timeoutMs);
}

/** Starts a long-running command inside the namespace; destroyInternet kills it if the caller did not. */
export function spawnInInternet(net: Internet, file: string, args: string[]): ChildProcess {
  return spawn("ip", ["netns", "exec", net.ns, file, ...args], { stdio: ["ignore", "pipe", "pipe"] });
}
