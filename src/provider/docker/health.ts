import type Docker from "dockerode";
import { execInContainer } from "../../docker-client.js";
import { docker, logTail } from "../../docker-client.js";
import { isListening, isLocalContainerProcess, listeningPorts } from "./listening.js";
import { diagnosisLine } from "../contract/diagnose-start.js";
import { isMissingBinary, isRefused, judgeAnswer, LOOPBACK_HINT, NO_CLIENT, PROBE_CLIENTS } from "./http-probe.js";
import type { HealthCheck } from "../contract/docker-inputs.js";

export type { HealthCheck };

export class HealthError extends Error {}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// A probe must reach the app directly, never a proxy named in the container's environment.
const PROBE_ENV = ["http_proxy=", "HTTP_PROXY=", "https_proxy=", "HTTPS_PROXY=", "no_proxy=*", "NO_PROXY=*"];

/** Runs a command inside a container; its exit code and combined output. */
export function execIn(id: string, command: string[], env?: string[]): Promise<{ exitCode: number; output: string }> {
  return execInContainer(docker(), id, command, env);
}

/** Which HTTP client worked, per container: the others are not tried again. */
const clientOf = new Map<string, number>();

/**
 * One GET from inside the container: undefined when healthy, else the failure. Clients the
 * image lacks fail at once and the next is tried.
 */
async function probeHttpInside(id: string, url: string, path: string, anyStatus: boolean, label: string): Promise<string | undefined> {
  for (let i = clientOf.get(id) ?? 0; i < PROBE_CLIENTS.length; i++) {
    const client = PROBE_CLIENTS[i]!;
    const r = await execIn(id, client.command(url), PROBE_ENV);
    if (isMissingBinary(r.exitCode, r.output)) continue;
    clientOf.set(id, i);
    return judgeAnswer(client.parse(r.output, r.exitCode), path, anyStatus);
  }
  throw new HealthError(`${label}: ${NO_CLIENT}`);
}

/** The container's own address on its (first) network: where the edge and other services reach it. */
function networkAddress(info: Docker.ContainerInspectInfo): string | undefined {
  return Object.values(info.NetworkSettings.Networks ?? {}).find((n) => n.IPAddress)?.IPAddress;
}

async function probeExec(id: string, command: string[]): Promise<string | undefined> {
  const { exitCode } = await execIn(id, command);
  return exitCode === 0 ? undefined : `${command.join(" ")} exited ${exitCode}`;
}

/**
 * An HTTP check from inside the container to its network address, not to 127.0.0.1: an app
 * that listens on loopback only cannot be reached by the edge, so it must not pass. When the
 * network address refuses but loopback answers, that is said at once, with the fix.
 */
async function checkHttp(
  id: string,
  ip: string | undefined,
  check: Extract<HealthCheck, { kind: "http" }>,
  label: string,
): Promise<string | undefined> {
  if (!ip) return "the container has no network address yet";
  const probe = () => probeHttpInside(id, `http://${ip}:${check.port}${check.path}`, check.path, check.anyStatus === true, label);
  const failure = await probe();
  if (!failure || !isRefused(failure)) return failure;
  const loopback = await probeHttpInside(id, `http://127.0.0.1:${check.port}${check.path}`, check.path, true, label);
  if (loopback !== undefined) return `${failure} (at ${ip}:${check.port}; the app must ${LOOPBACK_HINT})`;
  // Loopback answers. Asked again, since an app that was just starting answers both by now.
  const again = await probe();
  if (again && isRefused(again)) {
    throw new HealthError(
      `${label} answers on 127.0.0.1:${check.port} inside its container, but not on its network address ${ip}:${check.port}, where the edge and other services reach it: ${LOOPBACK_HINT}`,
    );
  }
  return again;
}

/** One check: "" when it passed, else why not. */
async function probeOnce(
  id: string,
  info: Docker.ContainerInspectInfo,
  check: Exclude<HealthCheck, { kind: "running" }>,
  label: string,
): Promise<string> {
  try {
    if (check.kind === "http") return (await checkHttp(id, networkAddress(info), check, label)) ?? "";
    return (await probeExec(id, check.command)) ?? "";
  } catch (e) {
    // An exec into a container that just exited fails; the next look at its state says why.
    if (e instanceof HealthError) throw e;
    return (e as Error).message;
  }
}

/** False: still nothing listening at the deadline; true or undefined (cannot tell): probe. */
async function untilListening(id: string, pid: number | undefined, port: number, deadline: number): Promise<boolean | undefined> {
  if (!pid || !(await isLocalContainerProcess(id, pid))) return undefined;
  for (;;) {
    const open = await isListening(pid, port);
    if (open !== false || Date.now() > deadline) return open;
    await sleep(50);
  }
}

/** How long an app may listen on other ports only before the wait says so (an admin port may open before the main one). */
const ELSEWHERE_SECONDS = 20;

/** The ports the app listens on instead of `port`, once it has run ELSEWHERE_SECONDS; undefined before, or when it listens on none. */
async function otherPorts(pid: number | undefined, port: number, startedAt: string): Promise<number[] | undefined> {
  if (!pid || Date.now() - Date.parse(startedAt) < ELSEWHERE_SECONDS * 1000) return undefined;
  const ports = (await listeningPorts(pid))?.filter((p) => p !== port);
  return ports?.length ? ports : undefined;
}

/**
 * Waits until the container passes its check. Fails fast when the container exits, with
 * its exit code and last log lines, and at the deadline with the last failing check.
 */
export async function waitHealthy(id: string, check: HealthCheck, timeoutSeconds: number, label: string): Promise<void> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  let last = "not checked yet";
  for (let delay = 100; ; delay = Math.min(delay * 1.5, 1000)) {
    const info = await docker().getContainer(id).inspect();
    const state = info.State;
    const service = info.Config.Labels?.["platform.service"];
    if (!state.Running) {
      const tail = await logTail(id);
      throw new HealthError(
        `${label} exited with code ${state.ExitCode} before it was healthy${state.OOMKilled ? " (killed: out of memory; raise its resources preset)" : ""}\n${diagnosisLine(tail, { service })}--- last log lines ---\n${tail || "(no output)"}`,
      );
    }
    if (check.kind === "running") {
      // A worker is started once it has kept running for a while: an import error or a refused
      // connection at start exits within seconds, and must fail the deploy with its log.
      const settle = (check.settleSeconds ?? 0) * 1000;
      const started = Date.parse(state.StartedAt);
      if (!settle || Date.now() - started >= settle) return;
      await sleep(Math.min(500, settle));
      continue;
    }
    // Until something listens on the port, look from the host (free for the container) every
    // 50 ms instead of probing inside it; the process gone or unreadable ends the wait at once.
    // The look lasts until the app has run ELSEWHERE_SECONDS, then a second at a time, so that
    // one listening on another port is told early.
    const soon = Math.min(deadline, Math.max(Date.parse(state.StartedAt) + ELSEWHERE_SECONDS * 1000, Date.now() + 1000));
    const notListening = check.kind === "http" && (await untilListening(id, state.Pid, check.port, soon)) === false;
    last = notListening
      ? `nothing listens on port ${check.port} in the container (the app must ${LOOPBACK_HINT}, and PORT is ${check.port})`
      : await probeOnce(id, info, check, label);
    if (last === "") return;
    // Listening elsewhere for a while: it will not move to $PORT by itself.
    const elsewhere = notListening && check.kind === "http" ? await otherPorts(state.Pid, check.port, state.StartedAt) : undefined;
    if (elsewhere || Date.now() > deadline) {
      const tail = await logTail(id);
      const diagnosis = elsewhere
        ? `diagnosis: the app listens on port ${elsewhere.join(", ")}, not on the port the platform gives it in $PORT (${check.kind === "http" ? check.port : ""}): start it on "$PORT" (platform.yml start:, e.g. uvicorn ... --port "$PORT"), or make the app read PORT\n`
        : diagnosisLine(tail, { service });
      throw new HealthError(
        `${label} did not become healthy${elsewhere ? "" : ` within ${timeoutSeconds}s`}: ${last}\n${diagnosis}--- last log lines ---\n${tail || "(no output)"}`,
      );
    }
    await sleep(delay);
  }
}
