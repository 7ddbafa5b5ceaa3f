import { type Credentials, requireCredentials } from "../engine/credentials.js";
import { makeBackup, restoreBackup, type DatabaseTarget } from "../engine/db-backup.js";
import { runningDatabase } from "../engine/db-host.js";
import { listRecords } from "../engine/history.js";
import { copySecrets } from "../engine/secret-copy.js";
import { ExitCode, VisibleError } from "../errors.js";
import type { DbHost } from "../runtime/pg-exec.js";
import type { StackContext } from "./context.js";
import { databaseTarget, humanBytes } from "./db-backup-action.js";

/**
 * `platform deploy --env NAME --from ENV`: a new environment starts from a copy of another's data
 * and secrets. On either target (and from one to the other): the copy is a dump of ENV's database
 * where it runs (its container, or its pod through kubectl exec) restored where NAME's runs.
 */

function runningIn(t: StackContext, env: string, service: string): Promise<DbHost | undefined> {
  return runningDatabase(t.project, env, service, requireCredentials()).catch(() => undefined);
}

/**
 * `platform deploy --env NAME --from ENV`, before anything is built: ENV is another environment
 * whose databases run, and NAME has no deployment that succeeded (a copy starts an environment,
 * it never overwrites one).
 */
export async function checkCopySource(t: StackContext, from: string): Promise<void> {
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
  const databases = Object.values(t.config.services).filter((s) => s.type === "postgres");
  for (const s of databases)
    if (!(await runningIn(t, from, s.name)))
      throw new VisibleError(`${s.name} is not running in ${t.project} (${from}): --from ${from} copies it (nothing was deployed)`, {
        exitCode: ExitCode.failed,
        details: [`  hint: platform status --env ${from} says why; platform envs lists the environments`],
      });
}

/** Before a `deploy --from` builds anything: the checks, then ENV's secrets that NAME does not set itself. */
export async function prepareCopy(t: StackContext, from: string, creds: Credentials): Promise<void> {
  await checkCopySource(t, from);
  const copied = await copySecrets(t.project, from, t.env, creds);
  if (copied.length) process.stderr.write(`→ secrets copied from ${from} (values not shown): ${copied.join(", ")}\n`);
}

/**
 * After the first deploy of an environment started `--from ENV`: each database gets ENV's data
 * as it is now (a backup of ENV's database, stored with THIS environment's backups, kind
 * "copy", then restored here). ENV is only read: nothing is written to it or its backups.
 */
export async function copyDatabasesFrom(t: StackContext, from: string, o: { json?: boolean }): Promise<void> {
  const creds = requireCredentials();
  const out = (line: string) => process[o.json ? "stderr" : "stdout"].write(`${line}\n`);
  for (const s of Object.values(t.config.services).filter((x) => x.type === "postgres")) {
    const sourceHost = await runningIn(t, from, s.name);
    if (!sourceHost) throw new VisibleError(`${s.name} stopped in ${t.project} (${from}) during the deploy: nothing was copied`);
    const here = await databaseTarget(t, s.name);
    const source: DatabaseTarget = { ...here, host: sourceHost };
    const { record } = await makeBackup(source, creds.passphrase, "copy", { note: `copy of ${from}'s ${s.name}` });
    await restoreBackup(here, record, creds.passphrase);
    out(`✓ ${s.name}: a copy of ${from}'s data (${humanBytes(record.bytes)}, backup ${record.id} of ${t.env}); ${from} was only read`);
  }
}
