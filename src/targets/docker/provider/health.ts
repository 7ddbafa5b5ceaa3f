import { execInContainer } from "../../../docker-host.js";
import { docker, logTail } from "./docker-client.js";

/** How a container proves it is ready: an HTTP path on its published port, or a command run inside it. */
export type HealthCheck =
  | { kind: "http"; path: string; port: number; anyStatus?: boolean }
  | { kind: "exec"; command: string[] }
  | { kind: "running" };

export class HealthError extends Error {}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The host port Docker published for a container port on 127.0.0.1. */
export async function publishedPort(id: string, port: number): Promise<number | undefined> {
  const info = await docker().getContainer(id).inspect();
  const binding = info.NetworkSettings.Ports?.[`${port}/tcp`]?.[0];
  return binding ? Number(binding.HostPort) : undefined;
}

async function probeHttp(hostPort: number, path: string, anyStatus: boolean): Promise<string | undefined> {
  try {
    const res = await fetch(`http://127.0.0.1:${hostPort}${path}`, { redirect: "manual", signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return anyStatus || (res.status >= 200 && res.status < 400) ? undefined : `GET ${path} answered ${res.status}`;
  } catch (e) {
    return `GET ${path} failed: ${(e as Error).cause ? String((e as Error & { cause: Error }).cause.message) : (e as Error).message}`;
  }
}

/** Runs a command inside a container; its exit code and combined output. */
export function execIn(id: string, command: string[]): Promise<{ exitCode: number; output: string }> {
  return execInContainer(docker(), id, command);
}

async function probeExec(id: string, command: string[]): Promise<string | undefined> {
  const { exitCode } = await execIn(id, command);
  return exitCode === 0 ? undefined : `${command.join(" ")} exited ${exitCode}`;
}

/**
 * Waits until the container passes its check. Fails fast when the container exits, with
 * its exit code and last log lines, and at the deadline with the last failing check.
 */
export async function waitHealthy(id: string, check: HealthCheck, timeoutSeconds: number, label: string): Promise<void> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  let last = "not checked yet";
  let hostPort: number | undefined;
  for (let delay = 100; ; delay = Math.min(delay * 1.5, 1000)) {
    const state = (await docker().getContainer(id).inspect()).State;
    if (!state.Running) {
      const tail = await logTail(id);
      throw new HealthError(`${label} exited with code ${state.ExitCode} before it was healthy${state.OOMKilled ? " (killed: out of memory; raise its resources preset)" : ""}\n--- last log lines ---\n${tail || "(no output)"}`);
    }
    if (check.kind === "running") return;
    if (check.kind === "http") {
      hostPort ??= await publishedPort(id, check.port);
      last = hostPort === undefined ? `port ${check.port} is not published` : ((await probeHttp(hostPort, check.path, check.anyStatus === true)) ?? "");
    } else {
      last = (await probeExec(id, check.command)) ?? "";
    }
    if (last === "") return;
    if (Date.now() > deadline) {
      const tail = await logTail(id);
      throw new HealthError(`${label} did not become healthy within ${timeoutSeconds}s: ${last}\n--- last log lines ---\n${tail || "(no output)"}`);
    }
    await sleep(delay);
  }
}
