import { mkdirSync } from "node:fs";
import { hostname, userInfo } from "node:os";
import { join } from "node:path";
import { ExitCode, VisibleError } from "../errors.js";
import { type Holder, processStart, tryLock, unlock } from "../process-lock.js";
import { homePaths } from "../home/layout.js";

export { isAlive } from "../process-lock.js";

/**
 * One operation at a time per stack (deploy, rollback, destroy), on this machine. The lock
 * file says who holds it; a lock whose process is gone (a killed CLI) is taken over, and the
 * caller recovers what that process left half-done.
 */
export interface LockHolder extends Holder {
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

export function describeHolder(h: LockHolder): string {
  return `${h.operation}${h.deploymentId ? ` ${h.deploymentId}` : ""} by ${h.user}@${h.host} (pid ${h.pid}, since ${h.startedAt})`;
}

export function acquireStackLock(project: string, env: string, operation: string, deploymentId?: string): StackLock {
  const dir = join(homePaths.workspaceDir(project), "locks");
  const file = join(dir, `${env}.json`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const me: LockHolder = {
    pid: process.pid,
    pidStart: processStart(process.pid),
    host: hostname(),
    user: userInfo().username,
    operation,
    deploymentId,
    startedAt: new Date().toISOString(),
  };
  let recoveredFrom: LockHolder | undefined;
  const holder = tryLock(file, me, (dead) => {
    recoveredFrom = dead ?? recoveredFrom;
  });
  if (holder) {
    throw new VisibleError(`${project} (${env}) is busy: ${describeHolder(holder)}; nothing was changed`, {
      exitCode: ExitCode.failed,
      details: [
        holder.host === me.host
          ? "  hint: wait for it to finish, then run this again"
          : `  hint: it runs on another machine; if that process is gone, remove ${file}`,
      ],
    });
  }
  return { recoveredFrom, release: () => unlock(file) };
}
