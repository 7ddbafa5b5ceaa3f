import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { requireCredentials } from "../engine/credentials.js";
import { linkedDirs, linkedProject, linkProject, unlinkDir } from "../engine/links.js";
import { projectUsers } from "../engine/projects.js";
import { ExitCode, VisibleError } from "../errors.js";
import { checkProjectName } from "./flags.js";
import { printJson } from "./render.js";

function projectDirOf(file: string): string {
  const dir = dirname(resolve(file));
  if (!existsSync(dir)) throw new VisibleError(`${dir} does not exist`, { exitCode: ExitCode.usage });
  return dir;
}

/** `platform link PROJECT`: says whether the project exists yet and who else deploys to it. */
export async function runLink(name: string, o: { file: string; json?: boolean }): Promise<void> {
  const project = checkProjectName(name, "platform link");
  const dir = projectDirOf(o.file);
  const previous = linkedProject(dir);
  const others = linkedDirs(project).filter((d) => d !== dir);
  const exists = others.length > 0 || (await projectUsers(project, requireCredentials())).length > 0;
  linkProject(dir, project);
  if (o.json) {
    printJson({ dir, project, previous: previous ?? null, exists, alsoLinked: others });
    return;
  }
  process.stdout.write(`✓ Linked ${dir} to project ${project}${previous && previous !== project ? ` (was ${previous})` : ""}\n`);
  if (!exists) process.stdout.write(`  ${project} has no stacks yet: the next platform deploy creates it\n`);
  if (others.length) process.stdout.write(`  also deploying to ${project}: ${others.join(", ")}\n`);
}

export function runUnlink(o: { file: string }): void {
  const dir = projectDirOf(o.file);
  const previous = linkedProject(dir);
  unlinkDir(dir);
  process.stdout.write(
    previous
      ? `✓ Unlinked ${dir} from project ${previous}; its services keep running. The next platform deploy here asks for a project again\n`
      : `${dir} was not linked to a project\n`,
  );
}
