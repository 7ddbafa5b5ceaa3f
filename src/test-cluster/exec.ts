import { spawn } from "node:child_process";
import { ExitCode, VisibleError } from "../errors.js";

export interface ToolResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface ToolOptions {
  /** Says what the tool is and how to get it, for the error when it fails or is missing. */
  what?: string;
  input?: string;
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  /** Return a non-zero exit instead of throwing. */
  allowFail?: boolean;
}

/**
 * The system tools a cluster needs (iptables, ip, mount, runc, containerd) live in the sbin
 * directories, which a non-login or CI environment may leave off PATH.
 */
export function systemToolEnv(): NodeJS.ProcessEnv {
  return { ...process.env, PATH: `/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:${process.env.PATH ?? ""}` };
}

/** Runs a command to completion. Failures become a VisibleError naming the command and its last output. */
export function runTool(cmd: string, args: string[], o: ToolOptions = {}): Promise<ToolResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: o.env ?? systemToolEnv(), stdio: [o.input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const timer = o.timeoutMs ? setTimeout(() => child.kill("SIGKILL"), o.timeoutMs) : undefined;
    child.stdout?.on("data", (d) => {
      stdout += d;
    });
    child.stderr?.on("data", (d) => {
      stderr += d;
    });
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(new VisibleError(`cannot run ${cmd}: ${e.message}${o.what ? ` (needs ${o.what})` : ""}`, { exitCode: ExitCode.environment }));
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const r = { code: code ?? -1, stdout, stderr };
      if (r.code === 0 || o.allowFail) return resolve(r);
      const why = signal ? `killed by ${signal}${o.timeoutMs ? ` after ${o.timeoutMs / 1000}s` : ""}` : `exit ${r.code}`;
      reject(new VisibleError(`${cmd} ${args.slice(0, 4).join(" ")} failed (${why})`, { details: tail(stderr || stdout, 15) }));
    });
    // A tool may exit before reading its input; that shows in its exit code, not as EPIPE.
    child.stdin?.on("error", () => {});
    child.stdin?.end(o.input);
  });
}

export function tail(text: string, lines: number): string[] {
  return text
    .trimEnd()
    .split("\n")
    .slice(-lines)
    .map((l) => `  ${l}`);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `check` until it returns a value (not undefined) or the time is up. A VisibleError
 * from `check` ends the wait at once (a component died); any other error counts as not yet.
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  o: { timeoutMs: number; everyMs?: number; onTimeout?: () => string[] },
): Promise<T> {
  const end = Date.now() + o.timeoutMs;
  for (;;) {
    const v = await check().catch((e: unknown) => {
      if (e instanceof VisibleError) throw e;
      return undefined;
    });
    if (v !== undefined) return v;
    if (Date.now() > end) {
      throw new VisibleError(`timed out after ${Math.round(o.timeoutMs / 1000)}s waiting for ${what}`, { details: o.onTimeout?.() ?? [] });
    }
    await sleep(o.everyMs ?? 500);
  }
}
