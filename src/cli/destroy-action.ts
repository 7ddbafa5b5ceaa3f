import { confirm } from "./confirm.js";
import { requireCredentials } from "../engine/credentials.js";
import { destroyEnvironment } from "../engine/env-remove.js";
import { ExitCode, VisibleError } from "../errors.js";
import { requireEngine } from "../runtime/docker.js";
import { resolveStack } from "./context.js";
import { printJson } from "./render.js";
import type { StackOptions } from "./stack-options.js";

export interface DestroyOptions extends StackOptions {
  deleteData?: boolean;
}

/** `platform destroy`: removes the stack's services; databases with retention: permanent keep their data unless --delete-data. */
export async function runDestroy(o: DestroyOptions): Promise<void> {
  const t = await resolveStack(o);
  const creds = requireCredentials();
  await requireEngine();
  if (!o.yes) {
    if (!process.stdin.isTTY)
      throw new VisibleError(`destroy needs confirmation: run again with --yes to remove ${t.project} (${t.env})`, {
        exitCode: ExitCode.usage,
      });
    const what = o.deleteData ? "every service AND the database data" : "every service (database data is kept)";
    if (!(await confirm(`Remove ${what} of ${t.project} (${t.env})? (y/N) `)))
      throw new VisibleError("nothing was removed", { exitCode: ExitCode.failed });
  }
  const { deleted, volumes, kept } = await destroyEnvironment(t, creds, {
    deleteData: o.deleteData,
    onNote: (line) => {
      if (!o.json) process.stdout.write(`note: ${line}\n`);
    },
  });
  if (o.json) {
    printJson({ project: t.project, env: t.env, deletedResources: deleted, deletedVolumes: volumes, keptVolumes: kept });
    return;
  }
  process.stdout.write(`✓ Destroyed ${t.project} (${t.env}): ${deleted} resources removed\n`);
  if (volumes.length) process.stdout.write(`  data removed: ${volumes.join(", ")}\n`);
  if (kept.length)
    process.stdout.write(`  data kept (retention: permanent): ${kept.join(", ")}; platform destroy --delete-data removes it\n`);
}
