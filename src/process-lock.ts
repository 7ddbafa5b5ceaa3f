import { readFileSync, rmSync, writeFileSync } from "node:fs";

/**
 * A lock file that names the process holding it. A holder whose process is gone (killed,
 * or the machine restarted) is recognised by its pid and the process's start time, so a
 * reused pid is not mistaken for it, and its lock is taken over. Shared by the engine's stack
 * lock and the provider's edge lock.
 */
export interface Holder {
  pid: number;
  /** Start time of the process in clock ticks since boot (Linux), against pid reuse. */
  pidStart?: string;
  host: string;
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

export function readHolder<T extends Holder>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as T;
  } catch {
    return undefined;
  }
}

/**
 * Takes the lock for `me`, or returns the live holder that has it. A dead holder's lock is
 * removed and taken over; `onTakeOver` hears of it.
 */
export function tryLock<T extends Holder>(file: string, me: T, onTakeOver?: (dead: T | undefined) => void): T | undefined {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      writeFileSync(file, `${JSON.stringify(me, null, 2)}\n`, { flag: "wx", mode: 0o600 });
      return undefined;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const holder = readHolder<T>(file);
    if (holder && (holder.host !== me.host || isAlive(holder.pid, holder.pidStart))) return holder;
    onTakeOver?.(holder);
    rmSync(file, { force: true });
  }
  throw new Error(`could not take the lock ${file}: another process keeps taking it`);
}

/** Removes the lock when `pid` still holds it. */
export function unlock(file: string, pid = process.pid): void {
  if (readHolder(file)?.pid === pid) rmSync(file, { force: true });
}
