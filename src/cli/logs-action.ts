import { requireCredentials } from "../engine/credentials.js";
import { stackRuntime } from "../engine/stack-ops.js";
import { ExitCode, VisibleError } from "../errors.js";
import { resolveStack } from "./context.js";
import { parseSince } from "./flags.js";
import type { StackOptions } from "./stack-options.js";

export interface LogsOptions extends StackOptions {
  follow?: boolean;
  since?: string;
  tail?: string;
}

/** `platform logs SERVICE`: from where the stack runs (its container's log; kubectl logs on Kubernetes). */
export async function runLogs(service: string, o: LogsOptions): Promise<void> {
  const t = await resolveStack(o);
  if (!t.config.services[service]) {
    throw new VisibleError(`no service "${service}" in ${t.configFile}; services: ${Object.keys(t.config.services).join(", ")}`, {
      exitCode: ExitCode.usage,
    });
  }
  const runtime = await stackRuntime(t, requireCredentials());
  await runtime.printLogs(service, {
    follow: o.follow,
    ...(o.since ? { sinceSeconds: parseSince(o.since) } : {}),
    ...(o.tail ? { tail: Number(o.tail) } : {}),
  });
}
