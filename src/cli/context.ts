import { existsSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { type Config, formatDiagnostic, loadConfig } from "../config/index.js";
import { MAX_PROJECT_NAME } from "../config/rules-names.js";
import { requireCredentials } from "../engine/credentials.js";
import { linkedProject, linkProject } from "../engine/links.js";
import { freeProjectName, projectUsers } from "../engine/projects.js";
import { ExitCode, VisibleError } from "../errors.js";
import { checkEnvName, checkProjectName } from "./flags.js";
import type { StackOptions } from "./stack-options.js";

export interface StackContext {
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
    throw new VisibleError(
      `no platform.yml in ${dirname(configFile)}: create one (see docs/reference/platform-yml.md) or pass --file PATH`,
      { exitCode: ExitCode.usage },
    );
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
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

/** A new project never takes a name somebody uses: it says who, and offers a free one. */
async function refuseUsedName(name: string, dir: string): Promise<void> {
  const creds = requireCredentials();
  const users = await projectUsers(name, creds, dir);
  if (users.length === 0) return;
  const free = await freeProjectName(name, creds, MAX_PROJECT_NAME);
  throw new VisibleError(`project "${name}" already exists (${users.join("; ")}); nothing was deployed`, {
    exitCode: ExitCode.failed,
    details: [
      `  hint: deploy this directory as a new project with --project ${free}, or join "${name}" deliberately with: platform link ${name}`,
    ],
  });
}

/**
 * The project this directory deploys to. A directory linked before keeps its project. The
 * first deploy creates one: it asks "No project found. Create one?" and a name (default:
 * `name` from platform.yml, or a free variant when that one is taken); --yes answers for CI.
 * --project joins (or creates) the named project deliberately, like `platform link`.
 */
async function chooseProject(dir: string, config: Config, o: StackOptions, create: boolean): Promise<string> {
  const linked = linkedProject(dir);
  if (o.project) {
    const name = checkProjectName(o.project);
    if (create && linked !== name) linkProject(dir, name);
    return name;
  }
  if (linked) return linked;
  if (!create) {
    throw new VisibleError(
      `no project is linked to ${dir}: \`platform deploy\` creates one, \`platform link PROJECT\` joins one, or pass --project NAME`,
      { exitCode: ExitCode.usage },
    );
  }
  if (o.yes) {
    await refuseUsedName(config.name, dir);
    linkProject(dir, config.name);
    return config.name;
  }
  if (!process.stdin.isTTY) {
    throw new VisibleError(
      `No project found for this directory, and there is no terminal to ask: run again with --yes (creates project "${config.name}") or --project NAME`,
      { exitCode: ExitCode.usage },
    );
  }
  const yes = await ask("No project found. Create one? (Y/n) ");
  if (/^n/i.test(yes)) throw new VisibleError("no project created; nothing was deployed", { exitCode: ExitCode.failed });
  const suggested = await freeProjectName(config.name, requireCredentials(), MAX_PROJECT_NAME);
  const name = checkProjectName((await ask(`Project name (${suggested}): `)) || suggested, "project name");
  await refuseUsedName(name, dir);
  linkProject(dir, name);
  return name;
}

export async function resolveStack(o: StackOptions, create = false): Promise<StackContext> {
  const { configFile, config } = await loadValidConfig(o.file);
  const projectDir = dirname(configFile);
  const env = checkEnvName(o.env ?? DEFAULT_ENV);
  const project = await chooseProject(projectDir, config, o, create);
  return { configFile, projectDir, project, env, config };
}
