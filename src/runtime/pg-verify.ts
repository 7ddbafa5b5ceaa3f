import { type DbHost, type ExecStream, execText, execWithInput, streamOut } from "./pg-exec.js";

/**
 * A backup proven by a real restore, where the database runs (its container, its pod), so the
 * scratch server is the very same PostgreSQL major version with nothing to pull or schedule:
 * the dump is made inside a transaction that also counts every table's rows (one snapshot, so
 * writes during the dump change neither), then restored into a throwaway cluster in the
 * container's /tmp (initdb, a server on a socket of its own, no TCP), whose counts must be the
 * same. The scratch cluster and the dump's copy are removed whatever happens.
 */

/** Every user table's exact row count, `schema.table|count` a line, by psql's \gexec. */
const COUNTS_SQL = [
  "SELECT format('SELECT %L || ''|'' || count(*) FROM %I.%I', n.nspname || '.' || c.relname, n.nspname, c.relname)",
  "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace",
  "WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%'",
  "ORDER BY 1 \\gexec",
].join(" ");

/**
 * pg_dump of the database in a REPEATABLE READ transaction that exported its snapshot (pg_dump
 * --snapshot), the dump on standard output; the same transaction's counts go to `countsFile`
 * in the container. On SIGTERM (the CLI gone, on Kubernetes) the dump and the session stop.
 */
const DUMP_COUNTED = `set -u
d=$(mktemp -d /tmp/platform-dump.XXXXXX)
mkfifo "$d/in"
psql -X -q -tA --no-password -v ON_ERROR_STOP=1 -U "$1" -d "$2" <"$d/in" >"$d/out" 2>"$d/err" & s=$!
exec 3>"$d/in"
trap 'kill "$s" "\${p:-}" 2>/dev/null; rm -rf "$d"; exit 143' TERM INT HUP
echo "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SELECT pg_export_snapshot();" >&3
i=0; while [ ! -s "$d/out" ] && [ $i -lt 300 ] && kill -0 "$s" 2>/dev/null; do sleep 0.1; i=$((i+1)); done
snap=$(head -n 1 "$d/out")
[ -n "$snap" ] || { cat "$d/err" >&2; kill "$s" 2>/dev/null; rm -rf "$d"; exit 1; }
pg_dump --format=custom --no-password -U "$1" -d "$2" --snapshot="$snap" & p=$!
wait "$p"; st=$?
if [ $st -eq 0 ]; then printf '%s\\n' "$4" "COMMIT;" >&3; else echo "ROLLBACK;" >&3; fi
exec 3>&-
wait "$s"; q=$?
[ $st -eq 0 ] && [ $q -ne 0 ] && { cat "$d/err" >&2; st=$q; }
tail -n +2 "$d/out" >"$3"
rm -rf "$d"
exit $st`;

/** `pg_dump --format=custom` on standard output, with the rows of its snapshot counted into `countsFile` (in the container). */
export function pgDumpCounted(host: DbHost, user: string, database: string, countsFile: string): ExecStream {
  return streamOut(host, ["sh", "-c", DUMP_COUNTED, "sh", user, database, countsFile, COUNTS_SQL]);
}

/** Reads and removes the counts file pgDumpCounted wrote. */
export async function takeCounts(host: DbHost, countsFile: string): Promise<Map<string, number> | undefined> {
  const r = await execText(host, ["sh", "-c", 'cat "$1" && rm -f "$1"', "sh", countsFile]);
  return r.code === 0 ? parseCounts(r.stdout) : undefined;
}

export function parseCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of text.split("\n")) {
    const at = line.lastIndexOf("|");
    if (at > 0) counts.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return counts;
}

/**
 * Restores a custom-format dump (standard input) into a scratch cluster and prints its counts.
 * initdb refuses root: as root (Docker's exec, most pods) the cluster is made and run as the
 * image's postgres user; a pod that runs as that user already runs it as itself.
 */
const RESTORE_SCRATCH = `set -u
need=$2; free=$(df -Pk /tmp | awk 'NR==2 {print $4}')
if [ "$free" -lt "$need" ]; then echo "no room for the scratch copy in /tmp: $((need / 1024)) MiB needed (the dump and the database restored), $((free / 1024)) MiB free" >&2; exit 3; fi
d=$(mktemp -d /tmp/platform-verify.XXXXXX)
chmod 755 "$d"
as=""; [ "$(id -u)" = 0 ] && { chown postgres:postgres "$d"; as="setpriv --reuid=postgres --regid=postgres --init-groups"; }
cleanup() { $as pg_ctl -D "$d/data" -m immediate stop >/dev/null 2>&1; rm -rf "$d"; }
trap cleanup EXIT
trap 'exit 143' TERM INT HUP
cat >"$d/dump" || exit 1
chown postgres "$d/dump" 2>/dev/null
$as initdb -D "$d/data" -U verify --auth=trust --no-sync >"$d/log" 2>&1 || { cat "$d/log" >&2; exit 1; }
$as pg_ctl -D "$d/data" -w -l "$d/server.log" -o "-k $d -c listen_addresses= -c port=54329 -c shared_buffers=16MB -c max_connections=8 -c fsync=off -c wal_level=minimal -c max_wal_senders=0 -c archive_mode=off" start >/dev/null 2>&1 || { cat "$d/server.log" >&2; exit 1; }
$as createdb -h "$d" -p 54329 -U verify scratch || exit 1
$as pg_restore -h "$d" -p 54329 -U verify -d scratch --no-owner --no-privileges --exit-on-error "$d/dump" || exit 1
printf '%s\\n' "$1" | $as psql -h "$d" -p 54329 -U verify -d scratch -X -q -tA -v ON_ERROR_STOP=1 -f -`;

/** The dump restored into a scratch cluster where the database runs; the restored tables' counts (stdout), or the failure. */
/**
 * Room the scratch copy needs in the container's /tmp: the dump, the database as big again, and
 * a margin. Less free space fails the check before anything is written, so a proof never fills
 * the disk the database itself writes to.
 */
export const scratchRoomKiB = (databaseBytes: number, dumpBytes: number) =>
  Math.ceil((databaseBytes * 1.25 + dumpBytes) / 1024) + 256 * 1024;

export async function pgRestoreScratch(
  host: DbHost,
  dump: AsyncIterable<Buffer>,
  needKiB: number,
): Promise<{ code: number; stderr: string; counts: Map<string, number> }> {
  const r = await execWithInput(host, ["sh", "-c", RESTORE_SCRATCH, "sh", COUNTS_SQL, String(needKiB)], dump);
  return { code: r.code, stderr: r.stderr, counts: parseCounts(r.stdout) };
}
