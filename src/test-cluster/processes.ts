import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { join } from "node:path";
import type { ComponentSpec, HealthCheck } from "./components.js";
import { runTool, sleep, systemToolEnv } from "./exec.js";
import type { ClusterLayout, ClusterToolchain } from "./layout.js";
import { netnsPath } from "./nodes.js";

/**
 * The cluster's components run as background processes that outlive the command that
 * started them: a pid file and a log each under ~/.platform/cluster/. A pid counts only while
 * /proc says it still runs the same binary, so a stale pid file (after a reboot or a killed
 * session) is never mistaken for a running component, nor makes `down` kill a stranger.
 */
export function pidFile(l: ClusterLayout, name: string): string {
  return join(l.pids, `${name}.pid`);
}

export function logFile(l: ClusterLayout, name: string): string {
  return join(l.logs, `${name}.log`);
}

/** The flags a running component was started with, beside its pid file. */
function argsFile(l: ClusterLayout, name: string): string {
  return join(l.pids, `${name}.args`);
}

/** Whether a running component was started with other flags than `spec` gives now (unknown: not changed). */
export function argsChanged(l: ClusterLayout, spec: ComponentSpec): boolean {
  try {
    return readFileSync(argsFile(l, spec.name), "utf8") !== JSON.stringify(spec.args);
  } catch {
    return false;
  }
}

/** The running pid of a component, else undefined. */
export function runningPid(l: ClusterLayout, spec: ComponentSpec): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile(l, spec.name), "utf8").trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  const cmd = commandOf(pid);
  // In a node's namespace: nsenter until it has exec'd the component (the same pid).
  return cmd === spec.command || (spec.netns && cmd === NSENTER) ? pid : undefined;
}

/** argv[0] of a live process (undefined when gone or a zombie). */
export function commandOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    if (/\) Z /.test(stat)) return undefined;
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0];
  } catch {
    return undefined;
  }
}

/** Enters a node's network namespace only (not `ip netns exec`, whose mount namespace would hide the kubelet's mounts from containerd). */
const NSENTER = "nsenter";

/** Starts a component detached from this process, its output appended to its log. */
export function startComponent(l: ClusterLayout, spec: ComponentSpec): number {
  mkdirSync(l.pids, { recursive: true });
  mkdirSync(l.logs, { recursive: true });
  const log = openSync(logFile(l, spec.name), "a");
  try {
    writeFileSync(log, `\n--- ${new Date().toISOString()} platform cluster up: ${spec.command} ${spec.args.join(" ")}\n`);
    // The CLI's umask (077, for its own files) would reach every directory the components make:
    // containerd then made each container's root directory 0700, and images whose entrypoint drops
    // to another user (postgres) failed with "libc.so.6: Permission denied". Daemons get 022.
    const previous = process.umask(0o022);
    let child: ChildProcess;
    try {
      const [cmd, args] = spec.netns
        ? [NSENTER, [`--net=${netnsPath(spec.netns)}`, "--", spec.command, ...spec.args]]
        : [spec.command, spec.args];
      child = spawn(cmd, args, {
        detached: true,
        stdio: ["ignore", log, log],
        // The kubelet and CNI plugins look for mount, iptables, ip and runc on PATH.
        env: { ...systemToolEnv(), ...spec.env },
      });
    } finally {
      process.umask(previous);
    }
    if (!child.pid) throw new Error(`could not start ${spec.command}`);
    child.unref();
    writeFileSync(pidFile(l, spec.name), `${child.pid}\n`);
    writeFileSync(argsFile(l, spec.name), JSON.stringify(spec.args));
    return child.pid;
  } finally {
    closeSync(log);
  }
}

/** SIGTERM, then SIGKILL after the grace period; removes the pid file. */
export async function stopComponent(l: ClusterLayout, spec: ComponentSpec, graceMs = spec.stopGraceMs ?? 10_000): Promise<boolean> {
  const pid = runningPid(l, spec);
  if (pid !== undefined) {
    signal(pid, "SIGTERM");
    const end = Date.now() + graceMs;
    while (commandOf(pid) === spec.command && Date.now() < end) await sleep(100);
    if (commandOf(pid) === spec.command) signal(pid, "SIGKILL");
    while (commandOf(pid) === spec.command) await sleep(50);
  }
  rmSync(pidFile(l, spec.name), { force: true });
  rmSync(argsFile(l, spec.name), { force: true });
  return pid !== undefined;
}

export function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    /* already gone */
  }
}

/** Whether a component answers its health check (within 3 s). */
export async function isHealthy(l: ClusterLayout, tc: ClusterToolchain, h: HealthCheck): Promise<boolean> {
  if (h.kind === "containerd") {
    if (!existsSync(h.socket)) return false;
    const r = await runTool(tc.ctr, ["--address", h.socket, "version"], { allowFail: true, timeoutMs: 3000 }).catch(() => undefined);
    return r?.code === 0;
  }
  return (await httpStatus(l, h)) === 200;
}

function httpStatus(l: ClusterLayout, h: Exclude<HealthCheck, { kind: "containerd" }>): Promise<number> {
  return new Promise((resolve) => {
    let tls: object = { rejectUnauthorized: false };
    if (h.kind === "https-admin") {
      // Unreadable for anyone but root: then the API server's health is unknown, not an error.
      try {
        tls = {
          ca: readFileSync(join(l.pki, "ca.crt")),
          cert: readFileSync(join(l.pki, "admin.crt")),
          key: readFileSync(join(l.pki, "admin.key")),
        };
      } catch {
        return resolve(0);
      }
    }
    const req = h.kind === "http" ? httpRequest(h.url, { timeout: 3000 }) : httpsRequest(h.url, { timeout: 3000, ...tls });
    req.on("response", (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(0));
    req.end();
  });
}

/** The last lines of a component's log, for errors. */
export function logTail(l: ClusterLayout, name: string, lines = 12): string[] {
  try {
    const text = readFileSync(logFile(l, name), "utf8");
    return [
      `  last lines of ${logFile(l, name)}:`,
      ...text
        .trimEnd()
        .split("\n")
        .slice(-lines)
        .map((s) => `    ${s}`),
    ];
  } catch {
    return [`  no log at ${logFile(l, name)}`];
  }
}
