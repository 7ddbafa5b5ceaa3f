import type { Command } from "commander";
import { ExitCode, VisibleError } from "../errors.js";
import { resolveStackTarget, type StackOptions } from "./context.js";
import { stackOptions } from "./stack-flags.js";

/**
 * `platform rollback [dep_id]`: redeploys an earlier deployment's images and platform.yml
 * without building (default: the last successful deployment before the current one).
 * Database migrations are not reversed; it is recorded like any deployment.
 */
async function runRollback(id: string | undefined, o: StackOptions): Promise<void> {
  const t = await resolveStackTarget(o);
  const { requireCredentials } = await import("../engine/credentials.js");
  const creds = requireCredentials();
  const { requireEngine, missingImages } = await import("../runtime/docker.js");
  await requireEngine();
  const { chooseRollback, listRecords } = await import("../engine/history.js");
  const choice = chooseRollback(listRecords(t.project, t.env), id);
  if (typeof choice === "string") throw new VisibleError(`cannot roll back ${t.project} (${t.env}): ${choice}`, { exitCode: ExitCode.failed, details: ["  hint: platform deployments lists the deployments that can be rolled back to"] });
  const { target } = choice;
  const images = target.images ?? {};
  const gone = await missingImages(Object.values(images).map((i) => i.tag));
  if (gone.length) throw new VisibleError(`cannot roll back to ${target.id}: its images are gone (${gone.join(", ")}); nothing was changed`, { exitCode: ExitCode.failed, details: ["  hint: the images of the last 5 successful deployments are kept; platform deployments shows which ones"] });
  const when = `${target.startedAt}${target.git ? `, commit ${target.git.commit.slice(0, 8)}${target.git.dirty ? "+dirty" : ""}` : ""}`;
  const { runEngineDeploy } = await import("./deploy-run.js");
  await runEngineDeploy(t, creds, { configFile: target.configCopy as string, projectDir: t.projectDir, rollback: { of: target.id, images } }, o, [
    `rolling back to ${target.id} (${when}): its images and platform.yml, without building`,
    "database migrations are neither reversed nor run again: the schema stays as the newest migration left it",
  ]);
}

export function registerRollback(program: Command): void {
  stackOptions(program.command("rollback"))
    .argument("[deployment]", "the deployment to go back to (default: the last successful one before the current)")
    .description("redeploy an earlier deployment's images and configuration without building")
    .action(runRollback);
}
