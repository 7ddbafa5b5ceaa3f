import { requireCredentials } from "../engine/credentials.js";
import { chooseRollback, listRecords } from "../engine/history.js";
import { ExitCode, VisibleError } from "../errors.js";
import { missingImages, requireEngine } from "../runtime/docker.js";
import { resolveStack } from "./context.js";
import { runDeploySession } from "./deploy-session.js";
import type { StackOptions } from "./stack-options.js";

/**
 * `platform rollback [dep_id]`: redeploys an earlier deployment's images and platform.yml
 * without building (default: the last successful deployment before the current one).
 * Database migrations are not reversed; it is recorded like any deployment.
 */
export async function runRollback(id: string | undefined, o: StackOptions): Promise<void> {
  const t = await resolveStack(o);
  const creds = requireCredentials();
  await requireEngine();
  const choice = chooseRollback(listRecords(t.project, t.env), id);
  if (typeof choice === "string")
    throw new VisibleError(`cannot roll back ${t.project} (${t.env}): ${choice}`, {
      exitCode: ExitCode.failed,
      details: ["  hint: platform deployments lists the deployments that can be rolled back to"],
    });
  const { target } = choice;
  const images = target.images ?? {};
  const gone = await missingImages(Object.values(images).map((i) => i.tag));
  if (gone.length)
    throw new VisibleError(`cannot roll back to ${target.id}: its images are gone (${gone.join(", ")}); nothing was changed`, {
      exitCode: ExitCode.failed,
      details: ["  hint: the images of the last 5 successful deployments are kept; platform deployments shows which ones"],
    });
  const when = `${target.startedAt}${target.git ? `, commit ${target.git.commit.slice(0, 8)}${target.git.dirty ? "+dirty" : ""}` : ""}`;
  await runDeploySession(
    t,
    creds,
    { configFile: target.configCopy as string, projectDir: t.projectDir, rollback: { of: target.id, images } },
    o,
    [
      `rolling back to ${target.id} (${when}): its images and platform.yml, without building`,
      "database migrations are neither reversed nor run again: the schema stays as the newest migration left it",
    ],
  );
}
