import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Command } from "commander";
import { ExitCode, VisibleError } from "../errors.js";
import { checkProjectName } from "./flags.js";
import { printJson } from "./render.js";

function projectDirOf(file: string): string {
  const dir = dirname(resolve(file));
  if (!existsSync(dir)) throw new VisibleError(`${dir} does not exist`, { exitCode: ExitCode.usage });
  return dir;
}

/**
 * `platform link PROJECT` and `platform unlink`: joining an existing project is deliberate
 * (like `railway link`); a first deploy never joins one by accident.
 */
export function registerLink(program: Command): void {
  program.command("link")
    .argument("<project>", "the project this directory deploys to from now on")
    .description("deploy this directory to an existing (or new) project from now on")
    .option("-f, --file <path>", "the config file (its directory is linked)", "platform.yml")
    .option("--json", "machine-readable output")
    .action(async (name: string, o: { file: string; json?: boolean }) => {
      const project = checkProjectName(name, "platform link");
      const dir = projectDirOf(o.file);
      const { linkedDirs, linkedProject, linkProject } = await import("../engine/links.js");
      const { requireCredentials } = await import("../engine/credentials.js");
      const { projectUsers } = await import("../engine/projects.js");
      const previous = linkedProject(dir);
      const others = linkedDirs(project).filter((d) => d !== dir);
      const exists = others.length > 0 || (await projectUsers(project, requireCredentials())).length > 0;
      linkProject(dir, project);
      if (o.json) { printJson({ dir, project, previous: previous ?? null, exists, alsoLinked: others }); return; }
      process.stdout.write(`✓ Linked ${dir} to project ${project}${previous && previous !== project ? ` (was ${previous})` : ""}\n`);
      if (!exists) process.stdout.write(`  ${project} has no stacks yet: the next platform deploy creates it\n`);
      if (others.length) process.stdout.write(`  also deploying to ${project}: ${others.join(", ")}\n`);
    });

  program.command("unlink")
    .description("forget which project this directory deploys to (its services keep running)")
    .option("-f, --file <path>", "the config file (its directory is unlinked)", "platform.yml")
    .action(async (o: { file: string }) => {
      const dir = projectDirOf(o.file);
      const { linkedProject, unlinkDir } = await import("../engine/links.js");
      const previous = linkedProject(dir);
      unlinkDir(dir);
      process.stdout.write(previous
        ? `✓ Unlinked ${dir} from project ${previous}; its services keep running. The next platform deploy here asks for a project again\n`
        : `${dir} was not linked to a project\n`);
    });
}
