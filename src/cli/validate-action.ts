import { dirname, resolve } from "node:path";
import { loadConfig } from "../config/load-config.js";
import { linkedProject } from "../engine/links.js";
import { readSecretNames } from "../engine/secret-names.js";
import { checkEnvName } from "./flags.js";
import { pickRenderer } from "./render.js";
import { renderValidateResult } from "./validate-render.js";

/**
 * The secret names the directory's project has in that environment (none before its first
 * project exists), read from the stack's settings without Pulumi: validate stays light.
 */
function knownSecrets(file: string, env: string): { names: ReadonlySet<string>; env: string } | undefined {
  let project: string | undefined;
  try {
    project = linkedProject(dirname(resolve(file)));
  } catch {
    return undefined; // no such directory: loadConfig says so
  }
  return { names: new Set(project ? readSecretNames(project, env).keys() : []), env };
}

/** `platform validate`: offline, so it loads zod and yaml but never Pulumi or the Docker client. */
export async function runValidate(opts: { file: string; env: string; json?: boolean }): Promise<void> {
  const result = await loadConfig(opts.file, dirname(opts.file), knownSecrets(opts.file, checkEnvName(opts.env)));
  const mode = pickRenderer(opts, process.env, Boolean(process.stdout.isTTY));
  const out = renderValidateResult(result, opts.file, mode, mode === "tty" && !process.env.NO_COLOR);
  if (out.stdout !== "") process.stdout.write(out.stdout);
  if (out.stderr !== "") process.stderr.write(out.stderr);
  process.exitCode = out.exitCode;
}
