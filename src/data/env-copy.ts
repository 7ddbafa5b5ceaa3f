import { ExitCode, VisibleError } from "../errors.js";
import type { Credentials } from "../engine/credentials.js";
import { type DatabaseTarget, makeBackup, restoreBackup } from "./db-backup.js";
import { runningDatabase } from "./db-host.js";
import { databaseTarget, type StackRef } from "./db-target.js";
import { listRecords } from "../engine/history.js";
import { copySecrets } from "../engine/secret-copy.js";

/**
 * `platform deploy --env NAME --from ENV`: a new environment starts from a copy of another's data
 * and secrets. On either target (and from one to the other): the copy is a dump of ENV's database
 * where it runs (its container, or its pod through kubectl exec) restored where NAME's runs.
 */

/** One database copied into the new environment. */
export interface CopiedDatabase {
  readonly service: string;
  readonly bytes: number;
  /** The backup of the copy, kept with the new environment's backups (kind "copy"). */
  readonly backupId: string;
}

const postgresServices = (t: StackRef) => Object.values(t.config.services).filter((s) => s.type === "postgres");

/**
 * Before anything is built: ENV is another environment whose databases run, and NAME has no
 * deployment that succeeded (a copy starts an environment, it never overwrites one).
 */
export async function checkCopySource(t: StackRef, from: string, creds: Credentials): Promise<void> {
  if (from === t.env)
    throw new VisibleError(`--from ${from} names the environment being deployed: name another one (e.g. --from preview)`, {
      exitCode: ExitCode.usage,
    });
  if (listRecords(t.project, t.env).some((r) => r.outcome === "succeeded"))
    throw new VisibleError(
      `environment ${t.env} of ${t.project} exists already: --from only starts a new environment from a copy (nothing was deployed)`,
      {
        exitCode: ExitCode.usage,
        details: [
          `  hint: to bring ${from}'s data into it, back ${from} up and restore: platform db backup SERVICE --env ${from}, then platform db restore SERVICE --env ${from} --to-env ${t.env}`,
        ],
      },
    );
  for (const s of postgresServices(t))
    if (!(await runningDatabase(t.project, from, s.name, creds).catch(() => undefined)))
      throw new VisibleError(`${s.name} is not running in ${t.project} (${from}): --from ${from} copies it (nothing was deployed)`, {
        exitCode: ExitCode.failed,
        details: [`  hint: platform status --env ${from} says why; platform envs lists the environments`],
      });
}

/** Before a `deploy --from` builds anything: the checks, then ENV's secrets that NAME does not set itself (their names). */
export async function prepareCopy(t: StackRef, from: string, creds: Credentials): Promise<string[]> {
  await checkCopySource(t, from, creds);
  return copySecrets(t.project, from, t.env, creds);
}

/**
 * After the first deploy of an environment started `--from ENV`: each database gets ENV's data
 * as it is now (a backup of ENV's database, stored with THIS environment's backups, kind
 * "copy", then restored here). ENV is only read: nothing is written to it or its backups.
 */
export async function copyDatabasesFrom(
  t: StackRef,
  from: string,
  creds: Credentials,
  onCopied: (c: CopiedDatabase) => void,
): Promise<void> {
  for (const s of postgresServices(t)) {
    const sourceHost = await runningDatabase(t.project, from, s.name, creds).catch(() => undefined);
    if (!sourceHost) throw new VisibleError(`${s.name} stopped in ${t.project} (${from}) during the deploy: nothing was copied`);
    const here = await databaseTarget(t, s.name, creds);
    const source: DatabaseTarget = { ...here, host: sourceHost };
    const { record } = await makeBackup(source, creds.passphrase, "copy", { note: `copy of ${from}'s ${s.name}` });
    await restoreBackup(here, record, creds.passphrase);
    onCopied({ service: s.name, bytes: record.bytes, backupId: record.id });
  }
}
