import { spawn } from "node:child_process";
import { detachedEngineEnv } from "../docker-ssh.js";
import { mkdirSync, openSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { logFile, stateFile } from "./files.js";
import { homePaths } from "../home/layout.js";
import type { StudioState } from "./serve.js";

/**
 * The CLI side of Studio: one detached background process per platform home, found through
 * its state file and reused while it answers; `platform studio` asks it for a fresh one-time
 * sign-in token each time.
 */
export function readState(): StudioState | undefined {
  try {
    return JSON.parse(readFileSync(stateFile(), "utf8")) as StudioState;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The running Studio, when its process lives and it answers with its key. */
export async function runningStudio(): Promise<StudioState | undefined> {
  const s = readState();
  if (!s || !alive(s.pid)) return undefined;
  return (await answers(s)) ? s : undefined;
}

async function answers(s: StudioState): Promise<boolean> {
  const res = await fetch(`${s.url}/internal/ping`, { headers: { "x-studio-key": s.key }, signal: AbortSignal.timeout(3000) }).catch(
    () => undefined,
  );
  return res?.status === 204;
}

export async function mintToken(s: StudioState): Promise<string> {
  const res = await fetch(`${s.url}/internal/token`, {
    method: "POST",
    headers: { "x-studio-key": s.key },
    signal: AbortSignal.timeout(3000),
  });
  if (!res.ok) throw new Error(`Studio answered ${res.status}`);
  return ((await res.json()) as { token: string }).token;
}

/** Starts Studio in the background (detached, logs to studio.log) and waits until it answers. */
export async function startStudio(port?: number): Promise<StudioState> {
  mkdirSync(homePaths.studioDir(), { recursive: true, mode: 0o700 });
  const out = openSync(logFile(), "a", 0o600);
  const bin = fileURLToPath(new URL("../bin.js", import.meta.url));
  const args = [bin, "studio", "--serve", ...(port ? ["--port", String(port)] : [])];
  const child = spawn(process.execPath, args, { detached: true, stdio: ["ignore", out, out], env: detachedEngineEnv() });
  child.unref();
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const s = readState();
    if (s && s.pid === child.pid && (await answers(s))) return s;
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`Studio did not start; see ${logFile()}`);
}

/** Stops the running Studio; false when none ran. */
export async function stopStudio(): Promise<boolean> {
  const s = readState();
  if (!s || !alive(s.pid)) return false;
  process.kill(s.pid, "SIGTERM");
  const deadline = Date.now() + 10_000;
  while (alive(s.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (alive(s.pid)) process.kill(s.pid, "SIGKILL");
  return true;
}

/** The sign-in URL: one-time token, then the page to land on. */
export function signInUrl(s: StudioState, token: string, next = "/"): string {
  return `${s.url}/auth?token=${encodeURIComponent(token)}${next === "/" ? "" : `&next=${encodeURIComponent(next)}`}`;
}
