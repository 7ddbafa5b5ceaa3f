import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { demuxLogs } from "../docker-client.js";
import { ExitCode, VisibleError } from "../errors.js";
import { toolchain } from "../home/toolchain.js";
import { docker } from "./docker.js";
import { buildRunArgs, toOneOffSource } from "./one-off.js";
import type { LogOptions } from "./target-runtime.js";

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

/** `exec`: the command in the running container; `run`: in a fresh container of its image, settings and networks. */
export async function dockerOneOff(
  containerId: string,
  kind: "run" | "exec",
  service: string,
  command: readonly string[],
  tty: boolean,
): Promise<{ code: number; image: string }> {
  const info = await docker().getContainer(containerId).inspect();
  if (kind === "exec")
    return { code: await runDocker(["exec", "-i", ...(tty ? ["-t"] : []), containerId, ...command], {}), image: info.Config.Image };
  const name = `${info.Name.replace(/^\//, "").replace(/-[0-9a-f]{6}$/, "")}-run-${randomBytes(3).toString("hex")}`;
  const { args, env } = buildRunArgs(toOneOffSource(info), { name, service, command: [...command], tty });
  return { code: await runDocker(args, env), image: info.Config.Image };
}

/** A container's logs to this process's stdout and stderr; with `follow`, until it stops or Ctrl-C. */
export async function printContainerLogs(containerId: string, o: LogOptions): Promise<void> {
  const container = docker().getContainer(containerId);
  const opts = {
    stdout: true,
    stderr: true,
    timestamps: false,
    since: o.sinceSeconds ?? 0,
    tail: o.tail,
  } as const;
  if (o.follow) {
    const stream = await container.logs({ ...opts, follow: true });
    docker().modem.demuxStream(stream, process.stdout, process.stderr);
    await new Promise<void>((r) => {
      stream.on("end", r);
      process.on("SIGINT", () => r());
    });
  } else {
    process.stdout.write(demuxLogs((await container.logs({ ...opts, follow: false })) as unknown as Buffer));
  }
}
