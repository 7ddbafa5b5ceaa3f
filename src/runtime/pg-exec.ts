import { spawn } from "node:child_process";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";

/**
 * pg_dump, pg_restore and psql run where a stack's database runs, over its local socket, which
 * the image trusts: no password is needed, so none is passed, printed or recorded. The dump
 * streams through the CLI (which encrypts it); nothing plain is written on this machine.
 *
 * Where: a Docker container (`docker exec`, by its id) or, on the Kubernetes target, the
 * database's ready pod (`kubectl exec`): the same commands, the same streams, only the client
 * program and its arguments before the command differ.
 */
export type DbHost = string | PodHost;

/** A pod's container reached with `kubectl exec` (the binary, its kubeconfig, the pod). */
export interface PodHost {
  readonly kubectl: string;
  readonly kubeconfig: string;
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
}

/** The client program and its arguments that run `cmd` at `host` (`-i`: with standard input). */
export function execArgv(host: DbHost, cmd: string[], withStdin: boolean): [string, string[]] {
  const i = withStdin ? ["-i"] : [];
  if (typeof host === "string") return ["docker", ["exec", ...i, host, ...cmd]];
  const { kubectl, kubeconfig, namespace, pod, container } = host;
  return [kubectl, ["--kubeconfig", kubeconfig, "exec", "-n", namespace, ...i, pod, "-c", container, "--", ...cmd]];
}

export interface ExecResult {
  code: number;
  stderr: string;
}

export interface ExecStream {
  stdout: Readable;
  done: Promise<ExecResult>;
  kill(): void;
}

/** A client command (docker exec or run, kubectl exec): the process and its end, with its standard error (bounded). */
function clientProcess(program: string, args: string[], withStdin: boolean) {
  const child = spawn(program, args, { stdio: ["pipe", "pipe", "pipe"] });
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

function execIn(host: DbHost, cmd: string[], withStdin: boolean) {
  const [program, args] = execArgv(host, cmd, withStdin);
  return clientProcess(program, args, withStdin);
}

/**
 * In a pod, a command whose output streams out runs under a watch of its standard input, which
 * the CLI keeps open and never writes: when the CLI dies (kill -9), kubectl's input ends, the
 * pod's end of it too, and the watch stops the command. Without it the command would go on in
 * the pod (the kubelet does not stop an exec whose client went away), blocked on output no one
 * reads, holding its transaction and its locks. `docker exec` closes the command's output
 * when its client goes, which ends it.
 */
export const WATCHED =
  'exec 3<&0; "$@" </dev/null & p=$!; { while read -r _; do :; done; kill "$p" 2>/dev/null; } <&3 & w=$!; wait "$p"; s=$?; kill "$w" 2>/dev/null; exit $s';

/** A program's standard output, as it streams; it ends with the CLI, also on Kubernetes. */
export function streamOut(host: DbHost, cmd: string[]): ExecStream {
  const inPod = typeof host !== "string";
  const { child, done } = execIn(host, inPod ? ["sh", "-c", WATCHED, "sh", ...cmd] : cmd, inPod);
  return { stdout: child.stdout, done, kill: () => child.kill("SIGKILL") };
}

/**
 * A base backup of the whole server (pg_basebackup) as one tar on standard output, with the WAL
 * it needs (`-X fetch`) and its manifest; `label` names it in the WAL archive's `.backup` file.
 */
export function pgBaseBackup(host: DbHost, user: string, label: string): ExecStream {
  return streamOut(host, [
    "pg_basebackup",
    "-D",
    "-",
    "-F",
    "tar",
    "-X",
    "fetch",
    "--checkpoint=fast",
    "--no-password",
    "-U",
    user,
    "-l",
    label,
  ]);
}

/** Runs `cmd` at `host` with `input` on its standard input; its output is kept (bounded). */
export function execWithInput(host: DbHost, cmd: string[], input: AsyncIterable<Buffer>): Promise<ExecResult & { stdout: string }> {
  return clientWithInput(...execArgv(host, cmd, true), input);
}

/** Runs a `docker` client command with `input` on its standard input (throws when feeding it failed); its output is kept (bounded). */
export function dockerWithInput(args: string[], input: AsyncIterable<Buffer>): Promise<ExecResult & { stdout: string }> {
  return clientWithInput("docker", args, input);
}

async function clientWithInput(program: string, args: string[], input: AsyncIterable<Buffer>): Promise<ExecResult & { stdout: string }> {
  const { child, done } = clientProcess(program, args, true);
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

/** Runs `cmd` at `host`; its standard output and error (bounded). */
export function execText(host: DbHost, cmd: string[]): Promise<ExecResult & { stdout: string }> {
  return clientText(...execArgv(host, cmd, false));
}

/** Runs a `docker` client command; its standard output and error (bounded). */
export function dockerText(args: string[]): Promise<ExecResult & { stdout: string }> {
  return clientText("docker", args);
}

async function clientText(program: string, args: string[]): Promise<ExecResult & { stdout: string }> {
  const { child, done } = clientProcess(program, args, false);
  let stdout = "";
  child.stdout.on("data", (d) => {
    stdout = (stdout + d).slice(-20000);
  });
  const r = await done;
  return { ...r, stdout };
}

/**
 * Replaces everything in the database with the dump at `dumpPath` (in the container), in ONE
 * transaction: every schema but the system's is dropped, then the dump is replayed (owners and
 * grants as the dump has them are not reapplied: the stack's user owns everything). A failure
 * at any point rolls back and leaves the data as it was. Requests of running apps wait for the
 * locks (at most `lockTimeout`) and then see the restored data.
 */
export function pgReplaceFrom(
  host: DbHost,
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
  return execText(host, ["sh", "-c", script, "sh", dumpPath, user, database]);
}

/** The server's version ("15.20"), from `postgres --version` in its container; undefined when it cannot tell. */
export async function postgresVersion(host: DbHost): Promise<string | undefined> {
  const r = await execText(host, ["postgres", "--version"]).catch(() => undefined);
  return r?.code === 0 ? /\(PostgreSQL\) (\d+(?:\.\d+)?)/.exec(r.stdout)?.[1] : undefined;
}
