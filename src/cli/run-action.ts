import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { requireCredentials } from "../engine/credentials.js";
import { kubeClusterOf } from "../engine/stack-ops.js";
import { ExitCode, VisibleError } from "../errors.js";
import { homePaths } from "../home/layout.js";
import { toolchain } from "../home/toolchain.js";
import { docker, listServiceContainers, requireEngine } from "../runtime/docker.js";
import type { KubeCluster } from "../runtime/kubernetes.js";
import { kubeOneOff } from "../runtime/kubernetes-run.js";
import { buildRunArgs, recordRun, toOneOffSource } from "../runtime/one-off.js";
import { resolveStack } from "./context.js";
import type { StackOptions } from "./stack-options.js";

/** The docker CLI handles the terminal (raw mode, resizes, signals) and the exit code as people expect. */
function dockerCli(): string {
  return process.env.PLATFORM_DOCKER_CLI || toolchain().dockerCli || "docker";
}

function runDocker(args: string[], env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(dockerCli(), args, { stdio: "inherit", env: { ...process.env, ...env } });
    // Ctrl-C reaches the command through the terminal (or docker's signal proxy): not us.
    const ignore = () => undefined;
    process.on("SIGINT", ignore);
    child.on("error", (e) => reject(new VisibleError(`cannot run ${dockerCli()}: ${e.message}`, { exitCode: ExitCode.environment })));
    child.on("close", (code, signal) => {
      process.off("SIGINT", ignore);
      resolve(code ?? (signal ? 128 + 15 : 1));
    });
  });
}

/**
 * `platform run SERVICE -- CMD...`: a fresh container of the service's running image;
 * `platform exec SERVICE -- CMD...`: inside the running container. Both exit with the command's
 * code and are appended to the stack's runs log (command, image, exit code, duration; not the
 * output, which went to the terminal).
 */
export async function runOneOff(kind: "run" | "exec", service: string, command: string[], o: StackOptions): Promise<void> {
  const t = await resolveStack(o);
  if (!t.config.services[service])
    throw new VisibleError(`no service "${service}" in ${t.configFile}; services: ${Object.keys(t.config.services).join(", ")}`, {
      exitCode: ExitCode.usage,
    });
  if (command.length === 0)
    throw new VisibleError(`platform ${kind} ${service}: no command; e.g. platform ${kind} ${service} -- sh`, { exitCode: ExitCode.usage });
  const kube = await kubeClusterOf(t, requireCredentials());
  if (kube) return runOnKubernetes(t, kube, kind, service, command);
  await requireEngine();
  const c = (await listServiceContainers(t.project, t.env)).find((x) => x.service === service);
  if (!c)
    throw new VisibleError(`${service} is not running in ${t.project} (${t.env}): run platform deploy`, { exitCode: ExitCode.failed });
  const info = await docker().getContainer(c.containerId).inspect();
  const tty = process.stdin.isTTY === true && process.stdout.isTTY === true;
  const t0 = Date.now();
  let code: number;
  if (kind === "exec") {
    code = await runDocker(["exec", "-i", ...(tty ? ["-t"] : []), c.containerId, ...command], {});
  } else {
    const name = `${info.Name.replace(/^\//, "").replace(/-[0-9a-f]{6}$/, "")}-run-${randomBytes(3).toString("hex")}`;
    const { args, env } = buildRunArgs(toOneOffSource(info), { name, service, command, tty });
    code = await runDocker(args, env);
  }
  finish(t, { kind, service, command, image: info.Config.Image, code, t0, tty });
}

/** Appends the run to the stack's runs log and exits with the command's code. */
function finish(
  t: { project: string; env: string },
  r: { kind: "run" | "exec"; service: string; command: string[]; image: string; code: number; t0: number; tty: boolean },
): void {
  recordRun(join(homePaths.logDir(t.project, t.env), "runs.jsonl"), {
    at: new Date(r.t0).toISOString(),
    kind: r.kind,
    service: r.service,
    command: r.command,
    image: r.image,
    exitCode: r.code,
    seconds: (Date.now() - r.t0) / 1000,
    tty: r.tty,
  });
  process.exitCode = r.code;
}

/** The Kubernetes target: a pod of the service's current image (run), or its ready pod (exec), through kubectl. */
async function runOnKubernetes(
  t: { project: string; env: string },
  kube: KubeCluster,
  kind: "run" | "exec",
  service: string,
  command: string[],
): Promise<void> {
  const tty = process.stdin.isTTY === true && process.stdout.isTTY === true;
  const t0 = Date.now();
  const { code, image } = await kubeOneOff(kube, kind, service, command, tty);
  finish(t, { kind, service, command, image, code, t0, tty });
}
