// "A server on the internet" for integration tests: a Docker engine and an OpenSSH server of
// its own inside a namespace made by helpers/internet.ts, reached from the root namespace (the
// laptop) as DOCKER_HOST=ssh://root@<address>, host keys checked.
//
//   <address> = net.clientAddress  the server's public address (the namespace's end of the veth)
//   <address>:22                   sshd (foreground, own config and keys), root by key only; its
//                                  sessions have DOCKER_HOST=unix://<run dir>/docker.sock, so
//                                  `docker system dial-stdio` there reaches THIS engine
//   <address>:<port>               what the engine's containers publish on 0.0.0.0
//   <run dir>/docker.sock          the same engine, for the test to look at directly (`dockerHost`)
//
// The engine is Debian's dockerd (20.10) with its own data root, exec root, pidfile, socket,
// daemon.json and cgroup parent, and its own managed containerd under the exec root; bridges
// and iptables are the namespace's own. It runs under `nsenter --net` + `unshare --mount
// --uts`, not `ip netns exec`: the latter remounts /sys for the namespace, which drops the
// cgroup mounts under /sys/fs/cgroup that dockerd needs. In its private mount namespace an
// empty tmpfs covers /run/containerd: dockerd 20.10 reuses a containerd whose socket is there
// (a Kubernetes test cluster's) instead of starting its own, and the shims' sockets and runc's
// state default to that directory too, where the main engine's are.
//
// Names carry the creating pid (plt-remote-<pid>-<n>: run dir /run/plt-remote-<pid>-<n>, cgroup
// parent, UTS hostname), so cleanStaleRemoteEngines() can remove what a crashed run left and
// never touches a live run's. If the test process dies, dockerd and sshd get SIGTERM (setpriv's
// parent-death signal): dockerd then stops its containers (up to 10 s each); what is still left
// (sshd's sessions, or everything after a SIGKILL) is the next run's cleanStaleRemoteEngines'.
// Call stop() before destroyInternet(): the latter SIGKILLs dockerd, leaving its containers.
//
// Data root: by default a cached one, $PLATFORM_HOME/cache/remote-engine/data-<slot> (one slot
// per live engine, claimed by a lock file), so the base images loaded into it survive between
// runs (loading python:3.11 from the main engine takes about 2.5 s; an image already there with
// the same ID is skipped). At start it is emptied of everything else (containers, other
// images, volumes, networks, build cache), so a test never sees a previous run's deploys.
// `keepData: false` gives a fresh data root inside the run dir, removed by stop().
//
// Measured on the 2-core CI machine: dockerd answers in 0.3 to 0.9 s, sshd accepts in 0.2 s,
// loading the five base images of images.json into an empty data root takes 11 to 15 s
// (python:3.11 alone 2.5 s), and a start with them cached about 1.5 s; stop() about 1.5 s.
//
// Needs root, /usr/sbin/sshd (scripts/setup/openssh.sh), Debian's dockerd, ssh-keygen.
import { type ChildProcess, spawn } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { DOCKER, PLATFORM_HOME, sleep, waitFor } from "./acme.js";
import { alive, type Internet, type RunResult, run } from "./internet.js";

export const REMOTE_ENGINE_PREFIX = "plt-remote-";
const RUN_ROOT = "/run";
const CACHE_DIR = join(PLATFORM_HOME, "cache", "remote-engine");
const SLOTS = 8;
const SSHD = "/usr/sbin/sshd";
const DOCKERD = existsSync("/usr/sbin/dockerd") ? "/usr/sbin/dockerd" : "/usr/bin/dockerd";
/** Debian's binaries first, for dockerd (containerd, runc, docker-proxy, iptables) and for the SSH sessions (`docker` is /usr/bin/docker). */
const SYSTEM_PATH = "/usr/sbin:/usr/bin:/sbin:/bin";
const MAIN_DOCKER_HOST = "unix:///var/run/docker.sock";

export interface RemoteEngineOptions {
  /** Images of the main engine to load into the remote one (skipped when there with the same ID). */
  images?: string[];
  /** Keep the data root (so the loaded images) in the cache between runs. Default true. */
  keepData?: boolean;
  /** The engine the images come from. Default unix:///var/run/docker.sock (the machine's own). */
  sourceDockerHost?: string;
  /** Bound for dockerd's API to answer. Default 60 s. */
  startTimeoutMs?: number;
  /**
   * Let the server's builds reach the package registries (PyPI, npm, the Debian mirror), as this
   * machine's builds do: a default route to the root namespace and a NAT of the server's one
   * address there, removed at stop. Default false (the namespace reaches only its /30).
   */
  egress?: boolean;
}

export interface RemoteEngine {
  /** plt-remote-<pid>-<n>: run dir name, cgroup parent, and the server's hostname (`docker info` Name). */
  name: string;
  /** The server's public address (net.clientAddress). */
  address: string;
  /** ssh://root@<address>: the DOCKER_HOST a laptop would use. */
  sshUrl: string;
  /** An ssh_config file for `ssh -F`: key, known host key, strict checking, batch mode. */
  sshConfig: string;
  /** The harness's private key (ed25519) that sshd accepts for root. */
  identityFile: string;
  /** known_hosts with the server's host key for <address>. */
  knownHostsFile: string;
  /** A directory holding an `ssh` that adds `-F sshConfig`: first on PATH, Docker's own CLI can use DOCKER_HOST=sshUrl. */
  sshWrapperDir: string;
  /** unix://<run dir>/docker.sock: the remote engine, seen directly from the root namespace. */
  dockerHost: string;
  /** The engine's data root (cached or in the run dir, see keepData). */
  dataRoot: string;
  runDir: string;
  /** How long the start took, in ms: dockerd until its API answered, the reset and image loads, sshd until it accepted. */
  timings: { dockerd: number; images: number; sshd: number };
  /** What dockerd and sshd have printed so far, for failure messages. */
  logs: () => string;
  /** A Docker CLI command against the remote engine's socket; never throws on a non-zero exit. */
  docker: (args: string[], timeoutMs?: number) => Promise<RunResult>;
  /** A command run on the server over SSH (`ssh -F sshConfig root@address ...`). */
  ssh: (command: string[], timeoutMs?: number) => Promise<RunResult>;
  /** Loads images from the source engine (skips those already there with the same ID). */
  loadImages: (images: string[]) => Promise<void>;
  /** Removes the engine's containers, stops sshd and dockerd, removes the run dir. Idempotent. */
  stop: () => Promise<void>;
}

/** What a run records in its run dir, so a later run can clean up after a crash. */
interface RunRecord {
  name: string;
  ns: string;
  dataRoot: string;
  /** The cache slot's lock file, when the data root is a cached one. */
  lock?: string;
  /** dockerd's UTS namespace, which sshd and its sessions share. */
  uts?: string;
}

let created = 0;

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** True when `p` settled within `ms`; the timer is cleared, so it never holds the process open. */
async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([p.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits (bounded) for a child to exit; SIGKILL when it did not in time. */
async function terminate(child: ChildProcess | undefined, graceMs: number): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  if (await within(exited, graceMs)) return;
  child.kill("SIGKILL");
  await within(exited, 5000);
}

/**
 * The server namespace's outbound path to what this machine reaches (the registries, through
 * its own route): a default route in the namespace via the root side, and in the root namespace
 * a NAT of that one address plus the forwarding Docker's FORWARD policy (DROP) needs, in its
 * DOCKER-USER chain. Returns what removes it all.
 */
async function openEgress(net: Internet): Promise<() => Promise<void>> {
  const rules = [
    ["-t", "nat", "POSTROUTING", "-s", `${net.clientAddress}/32`, "!", "-d", `${net.serverAddress}/30`, "-j", "MASQUERADE"],
    ["-t", "filter", "DOCKER-USER", "-s", `${net.clientAddress}/32`, "-j", "ACCEPT"],
    ["-t", "filter", "DOCKER-USER", "-d", `${net.clientAddress}/32`, "-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED", "-j", "ACCEPT"],
  ];
  const iptables = (op: "-I" | "-D", [flag, table, chain, ...rest]: string[]) => run("iptables", [flag!, table!, op, chain!, ...rest]);
  for (const r of rules) {
    const done = await iptables("-I", r);
    if (done.code !== 0) throw new Error(`iptables ${r.join(" ")}: ${done.stderr.trim()}`);
  }
  await must(
    "nsenter",
    [`--net=/run/netns/${net.ns}`, "ip", "route", "replace", "default", "via", net.serverAddress],
    "the server's default route",
  );
  return async () => {
    for (const r of rules) await iptables("-D", r);
  };
}

async function must(file: string, args: string[], what: string, timeoutMs?: number): Promise<string> {
  const r = await run(file, args, timeoutMs);
  if (r.code !== 0) throw new Error(`${what} failed (exit ${r.code}): ${r.stderr.trim() || r.stdout.trim()}`);
  return r.stdout;
}

// ---------------------------------------------------------------- cleanup (also after a crash)

/** Processes whose command line names a path inside `dir`: dockerd, its containerd and shims, sshd. */
function processesNaming(dir: string): number[] {
  const pids: number[] = [];
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${e}/cmdline`, "utf8").includes(`${dir}/`)) pids.push(Number(e));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

/** A process's namespace of one kind ("uts:[4026532…]"), or "" when it is gone. */
function namespaceOf(pid: number, kind: "net" | "uts"): string {
  try {
    return readlinkSync(`/proc/${pid}/ns/${kind}`);
  } catch {
    return "";
  }
}

/** The engine's cgroup parent in every hierarchy (cgroup v1: one per controller; v2: one). */
function cgroupDirs(name: string): string[] {
  const root = "/sys/fs/cgroup";
  const candidates = [join(root, name)];
  try {
    for (const h of readdirSync(root)) candidates.push(join(root, h, name));
  } catch {
    // no cgroup filesystem: nothing of ours can be there
  }
  return candidates.filter((d) => existsSync(join(d, "cgroup.procs")));
}

/** Every pid in a cgroup and below. */
function cgroupPids(dir: string): number[] {
  const pids: number[] = [];
  const walk = (d: string) => {
    try {
      for (const l of readFileSync(join(d, "cgroup.procs"), "utf8").split("\n")) if (l) pids.push(Number(l));
      for (const e of readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(join(d, e.name));
    } catch {
      // removed meanwhile
    }
  };
  walk(dir);
  return pids;
}

/** Removes a cgroup and the ones below it (children first; only empty ones can go). */
function removeCgroup(dir: string): void {
  try {
    for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) removeCgroup(join(dir, e.name));
    rmdirSync(dir);
  } catch {
    // busy or gone: nothing more to do here
  }
}

/**
 * What is left of an engine. Always: the containers' processes (its cgroup parent). Of the
 * processes in its network namespace: for a crashed run all of them (the namespace is that
 * run's); for a live one only the engine's: those naming its run dir (dockerd, containerd, the
 * shims, sshd) and those in its UTS namespace (sshd's sessions, which rename themselves), so a
 * process the test itself runs in the namespace is not ours to kill.
 */
async function leftovers(rec: RunRecord, runDir: string, crashed: boolean): Promise<Set<number>> {
  const inNs = (await run("ip", ["netns", "pids", rec.ns])).stdout.split(/\s+/).filter(Boolean).map(Number);
  const naming = processesNaming(runDir);
  const ours = crashed
    ? [...inNs, ...naming]
    : inNs.filter((pid) => naming.includes(pid) || (rec.uts && namespaceOf(pid, "uts") === rec.uts));
  return new Set([...ours, ...cgroupDirs(rec.name).flatMap(cgroupPids)]);
}

/** Kills what is left of an engine and removes its cgroups. Bounded: killed shims may orphan a container a moment later. */
async function sweep(rec: RunRecord, runDir: string, crashed: boolean): Promise<void> {
  for (let round = 0; round < 10; round++) {
    const pids = await leftovers(rec, runDir, crashed);
    if (pids.size === 0) break;
    for (const pid of pids) signal(pid, "SIGKILL");
    await sleep(200);
  }
  for (const d of cgroupDirs(rec.name)) removeCgroup(d);
}

/** Frees a cache slot, if `name` still holds it. */
function releaseSlot(lock: string | undefined, name: string): void {
  if (!lock) return;
  try {
    if (readFileSync(lock, "utf8").trim() === name) rmSync(lock, { force: true });
  } catch {
    // already released
  }
}

/** Stops and removes engines whose creating process is gone (crashed runs); never a live run's. */
export async function cleanStaleRemoteEngines(): Promise<string[]> {
  const removed: string[] = [];
  for (const name of readdirSync(RUN_ROOT).filter((n) => n.startsWith(REMOTE_ENGINE_PREFIX))) {
    const pid = Number(/^plt-remote-(\d+)-\d+$/.exec(name)?.[1]);
    if (!pid || alive(pid)) continue;
    const runDir = join(RUN_ROOT, name);
    let rec: RunRecord = { name, ns: "", dataRoot: "" };
    try {
      rec = JSON.parse(readFileSync(join(runDir, "engine.json"), "utf8")) as RunRecord;
    } catch {
      // crashed before writing it: the run dir and the cgroup name still find its processes
    }
    await sweep(rec, runDir, true);
    releaseSlot(rec.lock, name);
    rmSync(runDir, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

// ---------------------------------------------------------------- data root

/** Claims a free cache slot (lock file holding the engine's name); a dead owner's is taken over. */
function claimSlot(name: string): { dataRoot: string; lock: string } {
  mkdirSync(CACHE_DIR, { recursive: true });
  for (let k = 0; k < SLOTS; k++) {
    const lock = join(CACHE_DIR, `data-${k}.lock`);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        closeSync(openSync(lock, "wx"));
        writeFileSync(lock, `${name}\n`);
        return { dataRoot: join(CACHE_DIR, `data-${k}`), lock };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
        const owner = Number(/^plt-remote-(\d+)-/.exec(readFileSync(lock, "utf8"))?.[1]);
        if (owner && alive(owner)) break; // a live run's: try the next slot
        rmSync(lock, { force: true }); // its run crashed (cleanStaleRemoteEngines stopped its dockerd)
      }
    }
  }
  throw new Error(`all ${SLOTS} remote-engine data slots in ${CACHE_DIR} are held by live runs`);
}

// ---------------------------------------------------------------- keys and configs

interface SshFiles {
  hostKey: string;
  identityFile: string;
  authorizedKeys: string;
  knownHostsFile: string;
  sshdConfig: string;
  sshConfig: string;
  sshWrapperDir: string;
}

/** Fresh host and client keys (ed25519), the server's sshd_config and the client's ssh_config. */
async function writeSshFiles(dir: string, address: string, socket: string, runDir: string): Promise<SshFiles> {
  mkdirSync(dir, { mode: 0o700 });
  const f: SshFiles = {
    hostKey: join(dir, "host_ed25519"),
    identityFile: join(dir, "id_ed25519"),
    authorizedKeys: join(dir, "authorized_keys"),
    knownHostsFile: join(dir, "known_hosts"),
    sshdConfig: join(dir, "sshd_config"),
    sshConfig: join(dir, "ssh_config"),
    sshWrapperDir: join(dir, "bin"),
  };
  for (const [key, comment] of [
    [f.hostKey, "platform test server"],
    [f.identityFile, "platform test client"],
  ] as const) {
    await must("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", key], "ssh-keygen");
  }
  writeFileSync(f.authorizedKeys, readFileSync(`${f.identityFile}.pub`));
  const [type, blob] = readFileSync(`${f.hostKey}.pub`, "utf8").split(" ");
  writeFileSync(f.knownHostsFile, `${address} ${type} ${blob}\n`);
  // A server as a Debian one is set up for deploys: root by key only. Everything else (forwarding,
  // MaxSessions 10) stays at OpenSSH's defaults, so the test meets the limits a real server has.
  writeFileSync(
    f.sshdConfig,
    [
      `ListenAddress ${address}`,
      "Port 22",
      `HostKey ${f.hostKey}`,
      `PidFile ${join(runDir, "sshd.pid")}`,
      `AuthorizedKeysFile ${f.authorizedKeys}`,
      "PermitRootLogin prohibit-password",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "UsePAM no",
      // The sessions' docker reaches this engine, and is Debian's /usr/bin/docker.
      `SetEnv DOCKER_HOST=unix://${socket} PATH=${SYSTEM_PATH}`,
      "",
    ].join("\n"),
  );
  writeFileSync(
    f.sshConfig,
    [
      `Host ${address}`,
      "  User root",
      `  IdentityFile ${f.identityFile}`,
      "  IdentitiesOnly yes",
      `  UserKnownHostsFile ${f.knownHostsFile}`,
      "  StrictHostKeyChecking yes",
      "  BatchMode yes",
      "  ConnectTimeout 10",
      "",
    ].join("\n"),
    { mode: 0o600 },
  );
  // Docker's CLI runs plain `ssh` for DOCKER_HOST=ssh://; this one brings the config along.
  mkdirSync(f.sshWrapperDir);
  writeFileSync(join(f.sshWrapperDir, "ssh"), `#!/bin/sh\nexec /usr/bin/ssh -F ${f.sshConfig} "$@"\n`, { mode: 0o755 });
  return f;
}

// ---------------------------------------------------------------- processes

/** Environment for the daemons: Debian's binaries, no proxies, no DOCKER_* of the test's. */
function daemonEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: SYSTEM_PATH };
  for (const k of Object.keys(env)) if (/^(https?|all|no)_proxy$/i.test(k) || k.startsWith("DOCKER_")) delete env[k];
  return env;
}

/** Starts a daemon; it gets SIGTERM if this process dies (setpriv), and its output goes to `log`. */
function startDaemon(argv: string[], log: string[]): ChildProcess {
  const child = spawn("/usr/bin/setpriv", ["--pdeathsig", "TERM", "--", ...argv], { env: daemonEnv(), stdio: ["ignore", "pipe", "pipe"] });
  for (const s of [child.stdout, child.stderr]) s?.on("data", (c) => log.push(String(c)));
  child.on("exit", (code, sig) => log.push(`[exited: ${sig ?? code}]\n`));
  return child;
}

interface DockerdPaths {
  name: string;
  ns: string;
  runDir: string;
  dataRoot: string;
  socket: string;
}

/** dockerd in the namespace, in its own mount and UTS namespaces (see the top of the file for why). */
function spawnDockerd(p: DockerdPaths, log: string[]): ChildProcess {
  const config = join(p.runDir, "daemon.json");
  writeFileSync(config, "{}\n"); // not /etc/docker/daemon.json: a setting there that a flag also sets stops dockerd
  // The mkdir touches the shared filesystem (the directory containerd itself would make); the tmpfs does not.
  const prepare =
    'hostname "$1" && mkdir -p /run/containerd && mount -t tmpfs -o mode=0711,size=16m plt-remote /run/containerd && shift && exec "$@"';
  // biome-ignore format: one flag per line
  return startDaemon([
    "nsenter", `--net=/run/netns/${p.ns}`, "--",
    "unshare", "--mount", "--uts", "--propagation", "slave", "--",
    "/bin/sh", "-c", prepare, "sh", p.name,
    DOCKERD,
    "--config-file", config,
    "--data-root", p.dataRoot,
    "--exec-root", join(p.runDir, "exec"),
    "--pidfile", join(p.runDir, "dockerd.pid"),
    "-H", `unix://${p.socket}`,
    "--cgroup-parent", `/${p.name}`,
  ], log);
}

/** sshd in the namespace and in dockerd's UTS namespace (so the server's hostname is the engine's name). */
function spawnSshd(ns: string, dockerdPid: number, sshdConfig: string, log: string[]): ChildProcess {
  mkdirSync("/run/sshd", { recursive: true, mode: 0o755 }); // sshd's privilege separation directory
  return startDaemon(
    ["nsenter", `--net=/run/netns/${ns}`, `--uts=/proc/${dockerdPid}/ns/uts`, "--", SSHD, "-D", "-e", "-f", sshdConfig],
    log,
  );
}

/** True once something accepts a TCP connection at address:port. */
function tcpOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host, port, timeout: 1000 });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.once("connect", () => done(true));
    s.once("error", () => done(false));
    s.once("timeout", () => done(false));
  });
}

/** Waits for a child's readiness check, failing early (with why) when the child exits. */
async function waitReady(what: string, child: ChildProcess, timeoutMs: number, ok: () => Promise<boolean>): Promise<void> {
  const interval = 200;
  await waitFor(what, Math.ceil(timeoutMs / interval), interval, async () => {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${what}: the process exited (${child.signalCode ?? child.exitCode})`);
    return ok();
  });
}

// ---------------------------------------------------------------- images

/** An image's ID on an engine, or "" when it has none of that name. */
async function imageId(host: string, image: string): Promise<string> {
  const r = await run(DOCKER, ["-H", host, "image", "inspect", "--format", "{{.Id}}", image]);
  return r.code === 0 ? r.stdout.trim() : "";
}

/** `docker save` on one engine piped into `docker load` on another, bounded in time. */
function pipeImage(from: string, to: string, image: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const save = spawn(DOCKER, ["-H", from, "save", image], { stdio: ["ignore", "pipe", "pipe"] });
    const load = spawn(DOCKER, ["-H", to, "load", "--quiet"], { stdio: ["pipe", "ignore", "pipe"] });
    let err = "";
    for (const s of [save.stderr, load.stderr]) s.on("data", (c) => (err += c));
    save.stdout.pipe(load.stdin);
    const timer = setTimeout(() => {
      save.kill("SIGKILL");
      load.kill("SIGKILL");
    }, timeoutMs);
    const codes = [save, load].map((p) => new Promise<number | null>((r) => p.once("close", (code) => r(code))));
    Promise.all(codes).then(([s, l]) => {
      clearTimeout(timer);
      if (s === 0 && l === 0) resolve();
      else reject(new Error(`loading ${image} into ${to} failed (save exit ${s}, load exit ${l}): ${err.trim()}`));
    });
  });
}

async function loadImages(from: string, to: string, images: string[]): Promise<void> {
  for (const image of images) {
    const id = await imageId(from, image);
    if (!id)
      throw new Error(
        `image ${image} is not on ${from}: the remote engine loads it from there (scripts/setup/images.sh makes the base images)`,
      );
    if ((await imageId(to, image)) === id) continue;
    await pipeImage(from, to, image, 180_000);
  }
}

/** "name" means "name:latest", as `docker images` spells it. */
function withTag(image: string): string {
  return /:[^/]*$/.test(image) || image.includes("@") ? image : `${image}:latest`;
}

/**
 * Empties a (cached) engine of everything but the `keep` images under their names: no previous
 * run's containers, images or tags, volumes, networks or build cache.
 */
async function resetEngine(host: string, keep: string[]): Promise<void> {
  const d = (args: string[]) => must(DOCKER, ["-H", host, ...args], `docker ${args.slice(0, 2).join(" ")} on the remote engine`, 120_000);
  const lines = async (args: string[]) => (await d(args)).split("\n").filter(Boolean);
  const containers = await lines(["ps", "-aq"]);
  if (containers.length) await d(["rm", "-f", "-v", ...containers]);
  const kept = new Set(keep.map(withTag));
  // Untags what another name of a kept image carries; removes an image with its last name.
  const names = (await lines(["images", "--format", "{{.Repository}}:{{.Tag}}"])).filter((n) => !n.includes("<none>") && !kept.has(n));
  if (names.length) await d(["rmi", "-f", ...names]);
  const dangling = await lines(["images", "-q", "--no-trunc", "--filter", "dangling=true"]);
  if (dangling.length) await d(["rmi", "-f", ...new Set(dangling)]);
  await d(["volume", "prune", "-f"]);
  await d(["network", "prune", "-f"]);
  await d(["builder", "prune", "-af"]);
}

// ---------------------------------------------------------------- the engine

/**
 * Starts dockerd and sshd inside `net`'s namespace, loads `images` from the main engine, and
 * checks that `ssh -F sshConfig root@address` reaches this engine. Throws with both daemons'
 * output when something does not come up (and leaves nothing running).
 */
export async function startRemoteEngine(net: Internet, o: RemoteEngineOptions = {}): Promise<RemoteEngine> {
  if (process.getuid?.() !== 0) throw new Error("the remote-engine harness needs root (dockerd, sshd on port 22, namespaces)");
  if (!existsSync(SSHD)) throw new Error(`no ${SSHD}: run bash scripts/setup/openssh.sh`);
  await cleanStaleRemoteEngines();

  const name = `${REMOTE_ENGINE_PREFIX}${process.pid}-${created++}`;
  const runDir = join(RUN_ROOT, name);
  const socket = join(runDir, "docker.sock");
  const dockerHost = `unix://${socket}`;
  const address = net.clientAddress;
  const sourceHost = o.sourceDockerHost ?? MAIN_DOCKER_HOST;
  mkdirSync(runDir, { mode: 0o700 });
  let slot: { dataRoot: string; lock: string | undefined };
  try {
    slot = o.keepData === false ? { dataRoot: join(runDir, "data"), lock: undefined } : claimSlot(name);
  } catch (e) {
    rmSync(runDir, { recursive: true, force: true });
    throw e;
  }
  const rec: RunRecord = { name, ns: net.ns, ...slot };
  const record = () => writeFileSync(join(runDir, "engine.json"), `${JSON.stringify(rec, null, 2)}\n`);
  record();

  const dockerdLog: string[] = [];
  const sshdLog: string[] = [];
  const logs = () => `dockerd (${name}):\n${dockerdLog.join("")}\nsshd:\n${sshdLog.join("")}`;
  let dockerd: ChildProcess | undefined;
  let sshd: ChildProcess | undefined;
  let stopped = false;
  let closeEgress: (() => Promise<void>) | undefined;

  const docker = (args: string[], timeoutMs?: number) => run(DOCKER, ["-H", dockerHost, ...args], timeoutMs);
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    const ids = await docker(["ps", "-aq"], 10_000);
    const containers = ids.stdout.split("\n").filter(Boolean);
    if (ids.code === 0 && containers.length) await docker(["rm", "-f", "-v", ...containers], 60_000);
    await terminate(sshd, 5000);
    await terminate(dockerd, 20_000);
    await sweep(rec, runDir, false);
    await closeEgress?.();
    releaseSlot(rec.lock, name);
    rmSync(runDir, { recursive: true, force: true });
  };

  try {
    const ssh = await writeSshFiles(join(runDir, "ssh"), address, socket, runDir);
    if (o.egress) closeEgress = await openEgress(net);
    mkdirSync(slot.dataRoot, { recursive: true, mode: 0o710 });

    let t0 = performance.now();
    const since = () => Math.round(performance.now() - t0);
    dockerd = spawnDockerd({ name, ns: net.ns, runDir, dataRoot: slot.dataRoot, socket }, dockerdLog);
    const dockerdUp = async () => (await docker(["info", "--format", "{{.ID}}"], 5000)).code === 0;
    await waitReady(`the remote engine's API at ${dockerHost}`, dockerd, o.startTimeoutMs ?? 60_000, dockerdUp);
    const timings = { dockerd: since(), images: 0, sshd: 0 };
    rec.uts = namespaceOf(dockerd.pid!, "uts");
    record();

    t0 = performance.now();
    if (o.keepData !== false) await resetEngine(dockerHost, o.images ?? []);
    await loadImages(sourceHost, dockerHost, o.images ?? []);
    timings.images = since();

    t0 = performance.now();
    sshd = spawnSshd(net.ns, dockerd.pid!, ssh.sshdConfig, sshdLog);
    await waitReady(`sshd at ${address}:22`, sshd, 20_000, () => tcpOpen(address, 22));
    timings.sshd = since();

    const sshRun = (command: string[], timeoutMs?: number) => run("ssh", ["-F", ssh.sshConfig, `root@${address}`, ...command], timeoutMs);
    // The check a deploy depends on: over SSH, `docker` is this engine (its data root), host key checked.
    const seen = await sshRun(["docker", "info", "--format", "'{{.DockerRootDir}}'"], 20_000);
    if (seen.code !== 0 || seen.stdout.trim() !== slot.dataRoot)
      throw new Error(
        `over SSH, docker info says ${JSON.stringify(seen.stdout.trim())} (exit ${seen.code}: ${seen.stderr.trim()}); expected the remote engine's data root ${slot.dataRoot}`,
      );

    return {
      name,
      address,
      sshUrl: `ssh://root@${address}`,
      sshConfig: ssh.sshConfig,
      identityFile: ssh.identityFile,
      knownHostsFile: ssh.knownHostsFile,
      sshWrapperDir: ssh.sshWrapperDir,
      dockerHost,
      dataRoot: slot.dataRoot,
      runDir,
      timings,
      logs,
      docker,
      ssh: sshRun,
      loadImages: (images) => loadImages(sourceHost, dockerHost, images),
      stop,
    };
  } catch (e) {
    const why = logs();
    await stop();
    throw new Error(`${(e as Error).message}\n${why}`);
  }
}
