import { demuxLogs } from "../docker-client.js";
import { requireCredentials } from "../engine/credentials.js";
import { kubeClusterOf } from "../engine/stack-ops.js";
import { ExitCode, VisibleError } from "../errors.js";
import { docker, listServiceContainers, requireEngine } from "../runtime/docker.js";
import { kubeLogs } from "../runtime/kubernetes.js";
import { resolveStack } from "./context.js";
import { parseSince } from "./flags.js";
import type { StackOptions } from "./stack-options.js";

export interface LogsOptions extends StackOptions {
  follow?: boolean;
  since?: string;
  tail?: string;
}

/** `platform logs SERVICE`: from where the stack runs (kubectl logs on Kubernetes). */
export async function runLogs(service: string, o: LogsOptions): Promise<void> {
  const t = await resolveStack(o);
  if (!t.config.services[service]) {
    throw new VisibleError(`no service "${service}" in ${t.configFile}; services: ${Object.keys(t.config.services).join(", ")}`, {
      exitCode: ExitCode.usage,
    });
  }
  const kube = await kubeClusterOf(t, requireCredentials());
  if (kube) return kubeLogs(kube, service, o);
  await requireEngine();
  const c = (await listServiceContainers(t.project, t.env)).find((x) => x.service === service);
  if (!c)
    throw new VisibleError(`${service} is not deployed in ${t.project} (${t.env}): run platform deploy`, { exitCode: ExitCode.failed });
  const container = docker().getContainer(c.containerId);
  const opts = {
    stdout: true,
    stderr: true,
    timestamps: false,
    since: o.since ? parseSince(o.since) : 0,
    tail: o.tail ? Number(o.tail) : undefined,
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
