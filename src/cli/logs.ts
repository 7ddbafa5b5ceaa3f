import type { Command } from "commander";
import { ExitCode, VisibleError } from "../errors.js";
import { resolveStackTarget, type StackOptions } from "./context.js";
import { stackOptions } from "./stack-flags.js";

interface LogsOptions extends StackOptions {
  follow?: boolean;
  since?: string;
  tail?: string;
}

/** "10m", "2h", "30s" ago, or an ISO time, as Unix seconds. */
export function parseSince(since: string, now = Date.now()): number {
  const m = /^(\d+)(s|m|h|d)$/.exec(since);
  if (m) return Math.floor((now - Number(m[1]) * { s: 1e3, m: 6e4, h: 36e5, d: 864e5 }[m[2] as "s"]) / 1000);
  const t = Date.parse(since);
  if (Number.isNaN(t)) throw new VisibleError(`--since "${since}": use a duration like 10m, 2h, 30s, or an ISO time`, { exitCode: ExitCode.usage });
  return Math.floor(t / 1000);
}

async function runLogs(service: string, o: LogsOptions): Promise<void> {
  const t = await resolveStackTarget(o);
  if (!t.config.services[service]) {
    throw new VisibleError(`no service "${service}" in ${t.configFile}; services: ${Object.keys(t.config.services).join(", ")}`, { exitCode: ExitCode.usage });
  }
  const { requireCredentials } = await import("../engine/credentials.js");
  const { kubeTargetOf } = await import("./stack-runtime.js");
  const kube = await kubeTargetOf(t, requireCredentials());
  if (kube) {
    const { kubeLogs } = await import("../runtime/kubernetes.js");
    return kubeLogs(kube, service, o);
  }
  const { requireEngine, listServiceContainers, docker } = await import("../runtime/docker.js");
  await requireEngine();
  const c = (await listServiceContainers(t.project, t.env)).find((x) => x.service === service);
  if (!c) throw new VisibleError(`${service} is not deployed in ${t.project} (${t.env}): run platform deploy`, { exitCode: ExitCode.failed });
  const container = docker().getContainer(c.containerId);
  const opts = { stdout: true, stderr: true, timestamps: false, since: o.since ? parseSince(o.since) : 0, tail: o.tail ? Number(o.tail) : undefined } as const;
  if (o.follow) {
    const stream = await container.logs({ ...opts, follow: true });
    docker().modem.demuxStream(stream, process.stdout, process.stderr);
    await new Promise<void>((r) => { stream.on("end", r); process.on("SIGINT", () => r()); });
  } else {
    const { demuxLogs } = await import("../docker-client.js");
    process.stdout.write(demuxLogs((await container.logs({ ...opts, follow: false })) as unknown as Buffer));
  }
}

export function registerLogs(program: Command): void {
  // -f is --follow here, as in docker logs and heroku logs; the config file is --file.
  stackOptions(program.command("logs").argument("<service>", "service name from platform.yml"), false)
    .description("print a service's logs")
    .option("-f, --follow", "keep streaming new lines")
    .option("--since <when>", "only lines since a duration ago (10m, 2h) or an ISO time")
    .option("--tail <n>", "only the last n lines")
    .action(runLogs);
}
