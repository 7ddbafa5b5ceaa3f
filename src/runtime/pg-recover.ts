import { docker, logTail } from "../docker-client.js";
import { WAL_ARCHIVE_PATH } from "../plan/wal-archive.js";
import { dockerText, dockerWithInput, type ExecResult } from "./pg-exec.js";
import type { DatabaseRecovery } from "./target-runtime.js";

/**
 * What a point-in-time recovery does to a stopped database container's volumes: a one-shot
 * helper container of the same image, with no network, as the postgres user, mounts the data
 * and WAL archive volumes. `swap` moves the current data aside (OLD_DIR, in the same volume: a
 * rename, instant and without a copy), unpacks the base backup that arrives on its standard
 * input (decrypted by the CLI, never written plain on this machine) and asks for recovery up to
 * the target time; `rollback` puts the moved-aside data back. Nothing secret is on a command line.
 */
export const OLD_DIR = ".platform-pitr-old";

/**
 * What in the cluster's directory is not the cluster's: the moved-aside data, and when the
 * cluster is the volume's root (PostgreSQL 15), the other majors' clusters (pg17/...) and an
 * upgrade's dump (images/postgres/docker-entrypoint.sh).
 */
const OTHERS = `! -name ${OLD_DIR} ! -name 'pg[0-9]*' ! -name 'platform-upgrade-*'`;

export const SWAP = `set -eu
D=$PGDATA; OLD="$D/${OLD_DIR}"
if [ -e "$OLD" ]; then echo "$OLD exists: an earlier recovery did not finish; look at it, remove it, then try again" >&2; exit 3; fi
mkdir -m 0700 "$OLD"
find "$D" -mindepth 1 -maxdepth 1 ${OTHERS} -exec mv -t "$OLD" {} +
tar -x -C "$D" -f -
rm -f "$D/backup_manifest"
cat >> "$D/postgresql.auto.conf" <<CONF
restore_command = 'cp $2/%f "%p"'
recovery_target_time = '$1'
recovery_target_action = 'promote'
recovery_target_timeline = 'latest'
CONF
touch "$D/recovery.signal"`;

export const ROLLBACK = `set -eu
D=$PGDATA; OLD="$D/${OLD_DIR}"
[ -d "$OLD" ] || exit 0
find "$D" -mindepth 1 -maxdepth 1 ${OTHERS} -exec rm -rf {} +
find "$OLD" -mindepth 1 -maxdepth 1 -exec mv -t "$D" {} +
rmdir "$OLD"`;

/** The settings the recovery wrote (ALTER SYSTEM RESET them once the server is promoted). */
export const RECOVERY_SETTINGS = ["restore_command", "recovery_target_time", "recovery_target_action", "recovery_target_timeline"];

export interface DatabaseVolumes {
  image: string;
  dataVolume: string;
  dataPath: string;
  /** The cluster's directory: the container's PGDATA (the volume's root, or pg<major>/ in it). */
  clusterDir: string;
  archiveVolume?: string;
  archivePath: string;
}

/** The image and the volumes of a database container, as the engine says. */
export async function databaseVolumes(containerId: string, dataPath: string, archivePath: string): Promise<DatabaseVolumes> {
  const info = await docker().getContainer(containerId).inspect();
  const named = (target: string) => info.Mounts.find((m) => m.Destination === target && m.Type === "volume")?.Name;
  const dataVolume = named(dataPath);
  if (!dataVolume) throw new Error(`the container has no data volume at ${dataPath}`);
  const archiveVolume = named(archivePath);
  const clusterDir = (info.Config.Env ?? []).find((e) => e.startsWith("PGDATA="))?.slice("PGDATA=".length) || dataPath;
  return { image: info.Image, dataVolume, dataPath, clusterDir, archivePath, ...(archiveVolume ? { archiveVolume } : {}) };
}

function runHelper(v: DatabaseVolumes, script: string, args: string[], input?: AsyncIterable<Buffer>): Promise<ExecResult> {
  const mounts = ["-v", `${v.dataVolume}:${v.dataPath}`, ...(v.archiveVolume ? ["-v", `${v.archiveVolume}:${v.archivePath}:ro`] : [])];
  const run = ["run", "--rm", "-i", "--network", "none", "--user", "postgres", "-e", `PGDATA=${v.clusterDir}`, ...mounts];
  const cmd = [...run, "--entrypoint", "sh", v.image, "-c", script, "sh", ...args];
  return input ? dockerWithInput(cmd, input) : dockerText(cmd);
}

/** Moves the data aside and unpacks the base backup (`tar` on `input`) to recover up to `targetTime`. */
export function swapInBaseBackup(v: DatabaseVolumes, targetTime: string, input: AsyncIterable<Buffer>): Promise<ExecResult> {
  return runHelper(v, SWAP, [targetTime, v.archivePath], input);
}

/** Puts the moved-aside data back (nothing to do when nothing was moved). */
export function putBackOldData(v: DatabaseVolumes): Promise<ExecResult> {
  return runHelper(v, ROLLBACK, []);
}

/** Stops the container cleanly (SIGTERM becomes PostgreSQL's fast shutdown), waiting at most `seconds`. */
export async function stopContainer(containerId: string, seconds = 60): Promise<void> {
  await docker()
    .getContainer(containerId)
    .stop({ t: seconds })
    .catch((e: { statusCode?: number }) => {
      if (e.statusCode !== 304) throw e; // 304: already stopped
    });
}

export async function startContainer(containerId: string): Promise<void> {
  await docker()
    .getContainer(containerId)
    .start()
    .catch((e: { statusCode?: number }) => {
      if (e.statusCode !== 304) throw e; // 304: already running
    });
}

/** When the container's current run started, or undefined when it does not run (exited, or restarting after one). */
export async function runningSince(containerId: string): Promise<string | undefined> {
  const s = (await docker().getContainer(containerId).inspect()).State;
  return s.Running && !s.Restarting ? s.StartedAt : undefined;
}

/** The last lines of the container's log (the server's own messages: why a recovery stopped). */
export function containerLogTail(containerId: string, lines = 6): Promise<string> {
  return logTail(containerId, lines);
}

/** Where the data volume is mounted (the cluster is there, or in pg<major>/ of it: see DatabaseVolumes.clusterDir). */
const PGDATA = "/var/lib/postgresql/data";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A database container's recovery: the container stopped and started, its volumes swapped by a helper container. */
export async function dockerRecovery(containerId: string, service: string): Promise<DatabaseRecovery | string> {
  const volumes = await databaseVolumes(containerId, PGDATA, WAL_ARCHIVE_PATH);
  if (!volumes.archiveVolume) return `${service} has no WAL archive volume: deploy again to turn WAL archiving on`;
  return {
    stopping: "its container",
    oldDataPlace: `${OLD_DIR} of volume ${volumes.dataVolume}`,
    clusterDir: volumes.clusterDir,
    stop: () => stopContainer(containerId),
    start: () => startContainer(containerId),
    swapIn: (targetTime, input) => swapInBaseBackup(volumes, targetTime, input),
    putBack: () => putBackOldData(volumes),
    // A server that gives up exits, and its restart policy may start it again: a new run counts as stopped too.
    async untilPromoted(promoted, timeoutMs) {
      const since = await runningSince(containerId);
      for (const end = Date.now() + timeoutMs; since && Date.now() < end; await sleep(250)) {
        if (await promoted()) return true;
        if ((await runningSince(containerId)) !== since) return false;
      }
      return false;
    },
    logTail: () => containerLogTail(containerId),
  };
}
