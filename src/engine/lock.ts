import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, userInfo } from "node:os";
import { join } from "node:path";
import { ExitCode, VisibleError } from "../errors.js";
import { workspaceDir } from "./workspace-dir.js";

/**
 * One operation at a time per stack (deploy, rollback, destroy), on this machine. The lock
 * file says who holds it; a lock whose process is gone (a killed CLI) is recognised by its
 * pid and the process's start time (so a reused pid is not mistaken for it) and taken over.
 */
export interface LockHolder {
  pid: number;
  /** Start time of the process in clock ticks since boot (Linux), against pid reuse. */
  pidStart?: string;
  host: string;
  user: string;
  operation: string;
  deploymentId?: string;
  startedAt: string;
}

export interface StackLock {
  /** The holder whose process died, when this lock was taken over from it. */
  readonly recoveredFrom?: LockHolder;
  release(): void;
}

function lockFile(project: string, env: string): string {
  return join(workspaceDir(project), "locks", `${env}.json`);
}

/** Field 22 of /proc/PID/stat: when the process started; undefined off Linux. */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

export function isAlive(pid: number, pidStart?: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ESRCH") return false;
  }
  const now = processStart(pid);
  return pidStart === undefined || now === undefined || now === pidStart;
}

function readHolder(file: string): LockHolder | undefined {
  try { return JSON.parse(readFileSync(file, "utf8")) as LockHolder; } catch { return undefined; }
}

export function describeHolder(h: LockHolder): string {
  return `${h.operation}${h.deploymentId ? ` ${h.deploymentId}` : ""} by ${h.user}@${h.host} (pid ${h.pid}, since ${h.startedAt})`;
}

export function acquireStackLock(project: string, env: string, operation: string, deploymentId?: string): StackLock {
  const file = lockFile(project, env);
  mkdirSync(join(workspaceDir(project), "locks"), { recursive: true, mode: 0o700 });
  const me: LockHolder = { pid: process.pid, pidStart: processStart(process.pid), host: hostname(), user: userInfo().username, operation, deploymentId, startedAt: new Date().toISOString() };
  let recoveredFrom: LockHolder | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(file, `${JSON.stringify(me, null, 2)}\n`, { flag: "wx", mode: 0o600 });
      return { recoveredFrom, release: () => { if (readHolder(file)?.pid === me.pid) rmSync(file, { force: true }); } };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const holder = readHolder(file);
    if (holder && (holder.host !== me.host || isAlive(holder.pid, holder.pidStart))) {
      throw new VisibleError(`${project} (${env}) is busy: ${describeHolder(holder)}; nothing was changed`, {
        exitCode: ExitCode.failed,
        details: [holder.host === me.host
          ? "  hint: wait for it to finish, then run this again"
          : `  hint: it runs on another machine; if that process is gone, remove ${file}`],
      });
    }
    // Its process is gone (killed, or the machine restarted): the lock is ours to take over.
    recoveredFrom = holder ?? recoveredFrom;
    rmSync(file, { force: true });
  }
  throw new VisibleError(`could not take the lock ${file}: another process keeps taking it`, { exitCode: ExitCode.failed });
}
