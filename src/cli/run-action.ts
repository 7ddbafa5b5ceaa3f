import { join } from "node:path";
import { requireCredentials } from "../engine/credentials.js";
import { stackRuntime } from "../engine/stack-ops.js";
import { ExitCode, VisibleError } from "../errors.js";
import { homePaths } from "../home/layout.js";
import { recordRun } from "../runtime/one-off.js";
import { resolveStack } from "./context.js";
import type { StackOptions } from "./stack-options.js";

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
  const runtime = await stackRuntime(t, requireCredentials());
  const tty = process.stdin.isTTY === true && process.stdout.isTTY === true;
  const t0 = Date.now();
  const { code, image } = await runtime.oneOff(kind, service, command, tty);
  finish(t, { kind, service, command, image, code, t0, tty });
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
