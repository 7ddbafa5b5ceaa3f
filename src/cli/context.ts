import { existsSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { type Config, formatDiagnostic, loadConfig } from "../config/index.js";
import { ExitCode, VisibleError } from "../errors.js";
import { linkedProject, linkProject } from "../engine/links.js";

/** Options shared by the commands that act on a project's stack. */
export interface StackOptions {
  file?: string;
  env?: string;
  project?: string;
  yes?: boolean;
  json?: boolean;
}

export interface StackTarget {
  configFile: string;
  projectDir: string;
  project: string;
  env: string;
  config: Config;
}

export const DEFAULT_ENV = "preview";

/** Loads platform.yml or stops with every problem, as `platform validate` prints them. */
export async function loadValidConfig(file: string | undefined): Promise<{ configFile: string; config: Config }> {
  const configFile = resolve(file ?? "platform.yml");
  if (!existsSync(configFile)) {
    throw new VisibleError(`no platform.yml in ${dirname(configFile)}: create one (see README "platform.yml reference") or pass --file PATH`, { exitCode: ExitCode.usage });
  }
  // Positions are shown relative to where the user is, as they typed it: platform.yml:14:7.
  const r = await loadConfig(relative(process.cwd(), configFile) || configFile);
  if (!r.ok || !r.config) {
    throw new VisibleError(`platform.yml has ${r.errors.length} problem${r.errors.length === 1 ? "" : "s"}; nothing was deployed`, {
      exitCode: r.errors.some((e) => e.code === "unreadable") ? ExitCode.usage : ExitCode.failed,
      details: r.errors.map(formatDiagnostic),
    });
  }
  return { configFile, config: r.config };
}

async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try { return (await rl.question(question)).trim(); } finally { rl.close(); }
}

/**
 * The project this directory deploys to. The first deploy creates it: it asks
 * "No project found. Create one?" and a name (default: `name` from platform.yml);
 * --yes and --project answer for CI.
 */
async function chooseProject(dir: string, config: Config, o: StackOptions, create: boolean): Promise<string> {
  if (o.project) {
    if (create) linkProject(dir, o.project);
    return o.project;
  }
  const linked = linkedProject(dir);
  if (linked) return linked;
  if (!create) return config.name;
  if (o.yes) {
    linkProject(dir, config.name);
    return config.name;
  }
  if (!process.stdin.isTTY) {
    throw new VisibleError("No project found for this directory, and there is no terminal to ask: run again with --yes (creates project \"" + config.name + "\") or --project NAME", { exitCode: ExitCode.usage });
  }
  const yes = await ask("No project found. Create one? (Y/n) ");
  if (/^n/i.test(yes)) throw new VisibleError("no project created; nothing was deployed", { exitCode: ExitCode.failed });
  const name = (await ask(`Project name (${config.name}): `)) || config.name;
  if (!/^[a-z][a-z0-9-]{0,39}$/.test(name)) throw new VisibleError(`"${name}" cannot be a project name: use lowercase letters, digits and '-', starting with a letter`, { exitCode: ExitCode.usage });
  linkProject(dir, name);
  return name;
}

export async function resolveStackTarget(o: StackOptions, create = false): Promise<StackTarget> {
  const { configFile, config } = await loadValidConfig(o.file);
  const projectDir = dirname(configFile);
  const project = await chooseProject(projectDir, config, o, create);
  return { configFile, projectDir, project, env: o.env ?? DEFAULT_ENV, config };
}
