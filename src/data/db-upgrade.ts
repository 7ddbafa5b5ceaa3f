import { docker } from "../docker-client.js";
import { ExitCode, VisibleError } from "../errors.js";
import type { Plan } from "../plan/types.js";
import { listServiceContainers, runningContainer } from "../runtime/docker.js";
import { execText } from "../runtime/pg-exec.js";
import { ARCHIVE_PAUSE_FILE, WAL_ARCHIVE_PATH } from "../plan/wal-archive.js";
import { makeBackup } from "./db-backup.js";

/**
 * A PostgreSQL major upgrade on the Docker target (`version:` raised on a database that has
 * data), around the deploy that brings the new major's image:
 *  1. before it: an encrypted backup (kind "upgrade"), then the running server is made read-only
 *     (reads go on, writes fail) and dumps its database (pg_dump -Fc, the older server's own)
 *     into its volume as platform-upgrade-<major>.dump;
 *  2. the deploy replaces the container: the new major's cluster is initialised in pg<major>/ of
 *     the same volume from that dump (images/postgres/docker-entrypoint.sh), which it removes;
 *  3. after it: the older cluster, left as it was in the volume, is writable again should it
 *     ever be started; if the deploy failed, the older server (put back by the deploy) is
 *     writable again at once and the dump is removed.
 * A major never goes down: that is refused before anything changes.
 */
export interface Upgrade {
  project: string;
  env: string;
  service: string;
  /** The running (older) server's container. */
  containerId: string;
  from: number;
  to: number;
  /** The older cluster's directory (its container's PGDATA). */
  clusterDir: string;
  user: string;
  database: string;
  /** Where the older cluster's archived WAL went (a subdirectory of the archive), once moved aside. */
  archiveAside?: string;
}

/** Where the data volume is mounted: the upgrade dump is written at its root (images/postgres). */
const VOLUME_ROOT = "/var/lib/postgresql/data";
const dumpFile = (to: number) => `${VOLUME_ROOT}/platform-upgrade-${to}.dump`;

async function imageMajor(image: string): Promise<number | undefined> {
  try {
    const env = (await docker().getImage(image).inspect()).Config?.Env ?? [];
    const v = env.find((e) => e.startsWith("PG_MAJOR="))?.slice("PG_MAJOR=".length);
    return v ? Number.parseInt(v, 10) : undefined;
  } catch {
    return undefined;
  }
}

async function mustRun(containerId: string, what: string, cmd: string[]): Promise<string> {
  const r = await execText(containerId, cmd);
  if (r.code !== 0) throw new VisibleError(`${what} failed (exit ${r.code}): ${r.stderr.split("\n").slice(-3).join(" ")}`);
  return r.stdout.trim();
}

/** The databases of the plan whose running server is an older major than the plan's image; a newer one is refused. */
export async function findUpgrades(project: string, env: string, plan: Plan): Promise<Upgrade[]> {
  const running = await listServiceContainers(project, env);
  const found: Upgrade[] = [];
  for (const s of plan.services.filter((x) => x.database && x.image)) {
    const c = running.find((x) => x.service === s.name && x.state === "running");
    // The same image runs the same major: nothing to ask the server (most deploys end here).
    if (!c || c.image === s.image) continue;
    const to = await imageMajor(s.image as string);
    if (to === undefined) continue;
    const clusterDir = await mustRun(c.containerId, `reading ${s.name}'s data directory`, ["sh", "-c", 'printf %s "$PGDATA"']);
    const from = Number.parseInt(await mustRun(c.containerId, `reading ${s.name}'s version`, ["cat", `${clusterDir}/PG_VERSION`]), 10);
    if (from === to) continue;
    if (from > to)
      throw new VisibleError(`${s.name} runs PostgreSQL ${from}; platform.yml asks for ${to}: a database never goes down a major version`, {
        exitCode: ExitCode.usage,
        details: [
          `  hint: set services.${s.name}.version: ${from} (or remove it if ${from} is the default); to move data to an older server, platform db backup it and restore into a new environment`,
        ],
      });
    const { user, database } = s.database as { user: string; database: string };
    found.push({ project, env, service: s.name, containerId: c.containerId, from, to, clusterDir, user, database });
  }
  return found;
}

/** Puts (touch) or removes (rm) the pause file of the older cluster's archiving (plan/wal-archive.ts). */
const pauseFile = (u: Upgrade, op: "touch" | "rm") =>
  op === "touch"
    ? ["sh", "-c", 'touch "$0/$1" && chown postgres:postgres "$0/$1"', u.clusterDir, ARCHIVE_PAUSE_FILE]
    : ["rm", "-f", `${u.clusterDir}/${ARCHIVE_PAUSE_FILE}`];

/** psql as the database's owner (its superuser) over the container's socket, which the image trusts. */
const psql = (u: Upgrade, sql: string) => [
  "psql",
  "-X",
  "-q",
  "-tA",
  "-v",
  "ON_ERROR_STOP=1",
  "--no-password",
  "-U",
  u.user,
  "-d",
  "postgres",
  "-c",
  sql,
];

/** Step 1: a backup, then read-only and the dump in the volume. */
export async function prepareUpgrade(u: Upgrade, passphrase: string, say: (line: string) => void): Promise<void> {
  say(`${u.service}: PostgreSQL ${u.from} -> ${u.to}: a backup first`);
  const target = { project: u.project, env: u.env, service: u.service, host: u.containerId, user: u.user, database: u.database };
  const { record } = await makeBackup(target, passphrase, "upgrade", { note: `before the upgrade to PostgreSQL ${u.to}` });
  say(`${u.service}: backup ${record.id} made and verified (platform db restore ${u.service} ${record.id} brings it back)`);
  say(`${u.service}: read-only from now until the new server takes over (reads go on; writes fail)`);
  await mustRun(u.containerId, "making the database read-only", psql(u, "ALTER SYSTEM SET default_transaction_read_only = on"));
  await mustRun(u.containerId, "reloading its settings", psql(u, "SELECT pg_reload_conf()"));
  // Sessions already open would keep writing in a transaction they began before: they end now.
  await mustRun(
    u.containerId,
    "ending open sessions",
    psql(
      u,
      "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
    ),
  );
  const file = dumpFile(u.to);
  await mustRun(u.containerId, "dumping the database for the new version", [
    "sh",
    "-c",
    // A cluster of that major left from an earlier upgrade (then a rollback) is moved aside, kept:
    // the new one starts from this dump, not from older data.
    'set -e; if [ -e "$4" ]; then mv "$4" "$4.before-$(date -u +%Y%m%dT%H%M%SZ)"; fi; umask 077; pg_dump --format=custom --no-password -U "$2" -d "$3" -f "$1.partial"; chown postgres:postgres "$1.partial"; mv "$1.partial" "$1"',
    "sh",
    file,
    u.user,
    u.database,
    `${VOLUME_ROOT}/pg${u.to}`,
  ]);
  await setArchiveAside(u);
  say(`${u.service}: dumped into its volume; the deploy starts PostgreSQL ${u.to} from it`);
}

/**
 * The older cluster's WAL archive goes into a subdirectory of the archive volume (kept until
 * destroy --delete-data): the new cluster's segments start again from the first name, and an
 * older one of the same name would make its archiving fail. The older server archives nothing
 * more (its pause file; archive_command is a server flag, which ALTER SYSTEM cannot override)
 * while it runs on, read-only, until the deploy stops it.
 */
async function setArchiveAside(u: Upgrade): Promise<void> {
  const has = await execText(u.containerId, ["test", "-d", WAL_ARCHIVE_PATH]);
  if (has.code !== 0) return;
  await mustRun(u.containerId, "pausing the older server's WAL archiving", pauseFile(u, "touch"));
  // A segment the archiver is copying still has its .ready status file: moving the archive
  // before it is done would leave that segment behind, where a new one of its name would fail.
  const pending = psql(u, "SELECT count(*) FROM pg_ls_archive_statusdir() WHERE name LIKE '%.ready'");
  for (let i = 0; i < 100 && (await execText(u.containerId, pending)).stdout.trim() !== "0"; i++)
    await new Promise((r) => setTimeout(r, 100));
  const aside = `${WAL_ARCHIVE_PATH}/before-pg${u.to}-${new Date().toISOString().replace(/[-:]/g, "").slice(0, 15)}Z`;
  await mustRun(u.containerId, "moving the older WAL archive aside", [
    "sh",
    "-c",
    'mkdir -p "$1" && chown postgres:postgres "$1" && find "$0" -maxdepth 1 -type f -exec mv -t "$1" {} +',
    WAL_ARCHIVE_PATH,
    aside,
  ]);
  u.archiveAside = aside;
}

/** Step 3 after a failed deploy: the older server, put back by the deploy, takes writes again; the dump goes. */
export async function undoUpgrade(u: Upgrade, say: (line: string) => void): Promise<void> {
  const c = await runningContainer(u.project, u.env, u.service);
  if (!c) {
    say(`${u.service}: no server runs to take writes again; the next deploy starts one`);
    return;
  }
  await execText(c.containerId, ["rm", "-f", dumpFile(u.to), `${dumpFile(u.to)}.partial`]);
  if (u.archiveAside)
    await execText(c.containerId, [
      "sh",
      "-c",
      'find "$1" -maxdepth 1 -type f -exec mv -t "$0" {} + && rmdir "$1"',
      WAL_ARCHIVE_PATH,
      u.archiveAside,
    ]);
  await execText(c.containerId, pauseFile(u, "rm"));
  await execText(c.containerId, psql(u, "ALTER SYSTEM RESET default_transaction_read_only"));
  await execText(c.containerId, psql(u, "SELECT pg_reload_conf()"));
  say(`${u.service}: the upgrade did not happen; PostgreSQL ${u.from} takes writes again`);
}

/** Step 3 after a successful deploy: the older cluster, kept in the volume, is no longer marked read-only. */
export async function finishUpgrade(u: Upgrade, say: (line: string) => void): Promise<void> {
  const c = await runningContainer(u.project, u.env, u.service);
  if (c)
    await execText(c.containerId, [
      "sh",
      "-c",
      'sed -i \'/^default_transaction_read_only/d\' "$1/postgresql.auto.conf" && rm -f "$1/$2"',
      "sh",
      u.clusterDir,
      ARCHIVE_PAUSE_FILE,
    ]);
  say(
    `${u.service}: now PostgreSQL ${u.to}; the PostgreSQL ${u.from} cluster stays in its volume (${u.clusterDir}) until platform destroy --delete-data`,
  );
}

/** Runs `deploy` with the upgrades of its databases around it: prepared before, undone after a failure, finished after success. */
export async function deployWithUpgrades(
  upgrades: readonly Upgrade[],
  passphrase: string,
  say: (line: string) => void,
  deploy: () => Promise<void>,
): Promise<void> {
  const prepared: Upgrade[] = [];
  const undoAll = async () => {
    for (const u of prepared) await undoUpgrade(u, say).catch((e: Error) => say(`${u.service}: ${e.message}`));
  };
  try {
    for (const u of upgrades) {
      prepared.push(u);
      await prepareUpgrade(u, passphrase, say);
    }
    await deploy();
  } catch (e) {
    await undoAll();
    throw e;
  }
  for (const u of upgrades) await finishUpgrade(u, say);
}
