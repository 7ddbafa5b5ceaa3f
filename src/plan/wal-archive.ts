/**
 * Continuous WAL archiving of a postgres service (Docker target): PostgreSQL's own
 * `archive_command` copies every finished WAL segment into the service's archive volume, and
 * `archive_timeout` ends a segment at most every ARCHIVE_TIMEOUT_SECONDS when anything was
 * written, so at most that much of the newest writes is not archived yet. With a base backup
 * (pg_basebackup, see data/base-backup.ts) the archive lets `platform db restore --to-time`
 * recover any moment since the oldest base backup.
 */
export const WAL_ARCHIVE_PATH = "/var/lib/postgresql/wal-archive";
export const ARCHIVE_TIMEOUT_SECONDS = 60;
/** The label that tells a database's WAL archive volume from its data volume (same service labels). */
export const VOLUME_ROLE_LABEL = "platform.volume";
export const WAL_ARCHIVE_ROLE = "wal-archive";

/**
 * A file in a cluster's data directory (where archive_command runs) that pauses its archiving:
 * a major upgrade puts it in the older cluster's, which then archives nothing more while it runs
 * on (data/db-upgrade.ts), and removes it once that server has stopped.
 */
export const ARCHIVE_PAUSE_FILE = "platform-archive-paused";

/**
 * The copy PostgreSQL's documentation gives, made atomic (a temporary name, then a rename) and
 * idempotent: a segment already archived with the same bytes succeeds (the server retries one
 * it did not see finish), a different one fails and is retried, never overwritten.
 */
export const ARCHIVE_COMMAND =
  `if [ -e ${ARCHIVE_PAUSE_FILE} ]; then exit 0; fi; f=%f; p=%p; d=${WAL_ARCHIVE_PATH}; ` +
  'if [ -f "$d/$f" ]; then cmp -s "$p" "$d/$f"; else cp "$p" "$d/$f.part" && mv "$d/$f.part" "$d/$f"; fi';

/** The server flags that turn archiving on. */
export function walArchiveFlags(): string[] {
  return [
    "-c",
    "wal_level=replica",
    "-c",
    "archive_mode=on",
    "-c",
    `archive_command=${ARCHIVE_COMMAND}`,
    "-c",
    `archive_timeout=${ARCHIVE_TIMEOUT_SECONDS}`,
  ];
}

/**
 * The database container's command with archiving: a new volume's root belongs to root, so the
 * entrypoint (root at first) gives the archive directory to postgres, then runs the image's own
 * entrypoint with the server command as before (which drops to the postgres user).
 */
export function withWalArchive(command: readonly string[]): string[] {
  return [
    "sh",
    "-c",
    'install -d -o postgres -g postgres -m 0700 "$0" && exec docker-entrypoint.sh "$@"',
    WAL_ARCHIVE_PATH,
    ...command,
    ...walArchiveFlags(),
  ];
}
