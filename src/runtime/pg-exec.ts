import { spawn } from "node:child_process";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";

/**
 * pg_dump, pg_restore and psql run inside a stack's database container (`docker exec`), over
 * its local socket, which the image trusts: no password is needed, so none is passed, printed
 * or recorded. The dump streams through the CLI (which encrypts it); nothing plain is written
 * on this machine.
 */
export interface ExecResult {
  code: number;
  stderr: string;
}

export interface ExecStream {
  stdout: Readable;
  done: Promise<ExecResult>;
  kill(): void;
}

/** A `docker` client command (exec, run): the process and its end, with its standard error (bounded). */
function dockerProcess(args: string[], withStdin: boolean) {
  const child = spawn("docker", args, { stdio: ["pipe", "pipe", "pipe"] });
  if (!withStdin) child.stdin.end();
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  const done = new Promise<ExecResult>((resolve) => {
    child.on("error", (e) => resolve({ code: -1, stderr: e.message }));
    child.on("close", (code, signal) => resolve({ code: code ?? -1, stderr: stderr.trim() || (signal ? `killed by ${signal}` : "") }));
  });
  return { child, done };
}

function execIn(containerId: string, cmd: string[], withStdin: boolean) {
  return dockerProcess(["exec", ...(withStdin ? ["-i"] : []), containerId, ...cmd], withStdin);
}

/** `pg_dump --format=custom` of the database, on standard output. */
export function pgDump(containerId: string, user: string, database: string): ExecStream {
  const { child, done } = execIn(containerId, ["pg_dump", "--format=custom", "--no-password", "-U", user, "-d", database], false);
  return { stdout: child.stdout, done, kill: () => child.kill("SIGKILL") };
}

/**
 * A base backup of the whole server (pg_basebackup) as one tar on standard output, with the WAL
 * it needs (`-X fetch`) and its manifest; `label` names it in the WAL archive's `.backup` file.
 */
export function pgBaseBackup(containerId: string, user: string, label: string): ExecStream {
  const cmd = ["pg_basebackup", "-D", "-", "-F", "tar", "-X", "fetch", "--checkpoint=fast", "--no-password", "-U", user, "-l", label];
  const { child, done } = execIn(containerId, cmd, false);
  return { stdout: child.stdout, done, kill: () => child.kill("SIGKILL") };
}

/** Runs `cmd` in the container with `input` on its standard input; its output is kept (bounded). */
export function execWithInput(containerId: string, cmd: string[], input: AsyncIterable<Buffer>): Promise<ExecResult & { stdout: string }> {
  return dockerWithInput(["exec", "-i", containerId, ...cmd], input);
}

/** Runs a `docker` client command with `input` on its standard input (throws when feeding it failed); its output is kept (bounded). */
export async function dockerWithInput(args: string[], input: AsyncIterable<Buffer>): Promise<ExecResult & { stdout: string }> {
  const { child, done } = dockerProcess(args, true);
  let stdout = "";
  child.stdout.on("data", (d) => {
    stdout = (stdout + d).slice(-20000);
  });
  let fed: Error | undefined;
  await pipeline(Readable.from(input), child.stdin).catch((e: Error) => {
    fed = e;
    child.kill("SIGKILL");
  });
  const r = await done;
  if (fed) throw fed;
  return { ...r, stdout };
}

/** Runs `cmd` in the container; its standard output and error (bounded). */
export function execText(containerId: string, cmd: string[]): Promise<ExecResult & { stdout: string }> {
  return dockerText(["exec", containerId, ...cmd]);
}

/** Runs a `docker` client command; its standard output and error (bounded). */
export async function dockerText(args: string[]): Promise<ExecResult & { stdout: string }> {
  const { child, done } = dockerProcess(args, false);
  let stdout = "";
  child.stdout.on("data", (d) => {
    stdout = (stdout + d).slice(-20000);
  });
  const r = await done;
  return { ...r, stdout };
}

/** Reads a custom-format dump whole (pg_restore to /dev/null): a dump cut short or damaged fails. */
export function pgReadWhole(containerId: string, dump: AsyncIterable<Buffer>): Promise<ExecResult> {
  return execWithInput(containerId, ["pg_restore", "--file=/dev/null"], dump);
}

/**
 * Replaces everything in the database with the dump at `dumpPath` (in the container), in ONE
 * transaction: every schema but the system's is dropped, then the dump is replayed (owners and
 * grants as the dump has them are not reapplied: the stack's user owns everything). A failure
 * at any point rolls back and leaves the data as it was. Requests of running apps wait for the
 * locks (at most `lockTimeout`) and then see the restored data.
 */
export function pgReplaceFrom(
  containerId: string,
  user: string,
  database: string,
  dumpPath: string,
  lockTimeout = "60s",
): Promise<ExecResult & { stdout: string }> {
  const preamble = [
    `SET lock_timeout = '${lockTimeout}';`,
    "DO $$ DECLARE s text; BEGIN",
    "  FOR s IN SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema' LOOP",
    "    EXECUTE format('DROP SCHEMA %I CASCADE', s);",
    "  END LOOP;",
    "END $$;",
    "CREATE SCHEMA public;",
    "",
  ].join("\n");
  const script = [
    `pg_restore --no-owner --no-privileges --file="$1.sql" "$1" &&`,
    `psql -X -q --no-password -v ON_ERROR_STOP=1 --single-transaction -U "$2" -d "$3" -f - -f "$1.sql" <<'PLATFORM_EOF'\n${preamble}PLATFORM_EOF`,
    "status=$?",
    `rm -f "$1" "$1.sql"`,
    "exit $status",
  ].join("\n");
  return execText(containerId, ["sh", "-c", script, "sh", dumpPath, user, database]);
}

/** The server's version ("15.20"), from `postgres --version` in its container; undefined when it cannot tell. */
export async function postgresVersion(containerId: string): Promise<string | undefined> {
  const r = await execText(containerId, ["postgres", "--version"]).catch(() => undefined);
  return r?.code === 0 ? /\(PostgreSQL\) (\d+(?:\.\d+)?)/.exec(r.stdout)?.[1] : undefined;
}
