import { execFileSync, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Agent, request } from "node:https";
import { CLI } from "./env.js";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  seconds: number;
}

/** The result of a run that must succeed; anything else fails the test with its output. */
export function ok(r: CliResult): CliResult {
  if (r.code !== 0) throw new Error(`exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r;
}

/**
 * Adds a migration to the fullstack example's API that fails (a query on a missing table),
 * after its current head. Returns the file, for the test to remove.
 */
export function writeBrokenMigration(apiDir: string): string {
  const versions = join(apiDir, "migrations", "versions");
  const head = execFileSync("sh", ["-c", `grep -h "^revision" ${versions}/*.py | grep -v 9999 | head -1 | cut -d'"' -f2`])
    .toString()
    .trim();
  const broken = join(versions, "9999_broken.py");
  writeFileSync(
    broken,
    [
      '"""a migration that fails"""',
      "from alembic import op",
      "",
      'revision = "9999broken"',
      `down_revision = ${JSON.stringify(head)}`,
      "branch_labels = None",
      "depends_on = None",
      "",
      "def upgrade():",
      '    op.execute("SELECT no_such_column FROM no_such_table")',
      "",
      "def downgrade():",
      "    pass",
      "",
    ].join("\n"),
  );
  return broken;
}

/** Runs the real CLI (dist/bin.js) as a user would, without a TTY. */
export function runCli(args: string[], opts: { cwd: string; env: Record<string, string>; input?: string }): Promise<CliResult> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: opts.cwd, env: { ...process.env, ...opts.env, CI: "true" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.stdin.on("error", () => {});
    child.stdin.end(opts.input ?? "");
    // A spawn that fails (a working directory that does not exist) is a failed command, not a hang.
    child.on("error", (e) => resolve({ code: -1, stdout, stderr: `${stderr}${e.message}\n`, seconds: (Date.now() - t0) / 1000 }));
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr, seconds: (Date.now() - t0) / 1000 }));
  });
}

export interface HttpsResponse {
  status: number;
  body: string;
  authorized: boolean;
  /** The Server and Via headers of the answer, when it had any. */
  answeredBy?: string;
  /**
   * One line per time the request was sent again because the kept-alive connection it went out
   * on was closed by the server before any byte of an answer (see `httpsRequest`).
   */
  resent: string[];
}

export interface HttpsOptions {
  method?: string;
  body?: unknown;
  agent?: Agent;
  timeoutMs?: number;
  /** Where the request goes, whatever the URL's name: 127.0.0.1 unless given (a server in a test's own namespace). */
  address?: string;
  /**
   * Given by a caller that counts resends (a poller, a load): an idempotent request whose
   * kept-alive connection was closed under it goes again, and this is called with what happened.
   * Without it, that request fails like any other.
   */
  onResend?: (what: string) => void;
}

/**
 * One HTTPS request through the edge, sent to 127.0.0.1 whatever the host name (Node's resolver
 * does not map *.localhost to loopback as browsers and curl do), verified against the platform CA.
 *
 * Every error is thrown to the caller, a certificate that is not valid yet included: the
 * platform checks that the edge serves valid certificates before it prints a URL, so a request
 * after "Deployment complete" that fails on one is a regression, not something to wait out.
 *
 * One error can be sent again, and only for a caller that counts it (`onResend`): the one a
 * browser resends (RFC 9112 9.3.1; Chromium's HttpNetworkTransaction::ShouldResendRequest, Node's
 * documented `reusedSocket` pattern), an idempotent request written to a kept-alive connection
 * that the server closed before any byte of an answer. That is the race an HTTP/1.1 server's
 * graceful stop has with a client reusing an idle connection at that instant: a test whose edge
 * hands over to a new one may allow it (helpers/load.ts `resends`); anywhere else it is the
 * product closing connections it should not, and the pollers and loads count it as a failure.
 * It goes again on a new connection, at most twice, and is listed in `resent`.
 */
export async function httpsRequest(url: string, ca: string, opts: HttpsOptions = {}): Promise<HttpsResponse> {
  const resent: string[] = [];
  for (;;) {
    try {
      return { ...(await httpsRequestOnce(url, ca, opts)), resent };
    } catch (err) {
      if (!opts.onResend || !closedUnderReuse(err, opts.method) || resent.length >= 2) throw err;
      const what = `resent on a new connection: ${(err as Error).message} on a kept-alive one`;
      resent.push(what);
      opts.onResend(what);
    }
  }
}

const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);

/** A request that never got an answer because the kept-alive connection it reused was closed. */
function closedUnderReuse(err: unknown, method = "GET"): boolean {
  const e = err as { reusedSocket?: boolean; code?: string };
  return e.reusedSocket === true && IDEMPOTENT.has(method) && (e.code === "ECONNRESET" || e.code === "EPIPE");
}

function httpsRequestOnce(url: string, ca: string, opts: HttpsOptions): Promise<Omit<HttpsResponse, "resent">> {
  const u = new URL(url);
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: opts.address ?? "127.0.0.1",
        port: Number(u.port || 443),
        path: `${u.pathname}${u.search}`,
        method: opts.method ?? "GET",
        servername: u.hostname,
        ca,
        agent: opts.agent,
        headers: { host: u.host, ...(body ? { "content-type": "application/json", "content-length": Buffer.byteLength(body) } : {}) },
        timeout: opts.timeoutMs ?? 10_000,
      },
      (res) => {
        // Read now: a keep-alive socket goes back to the pool (and res.socket to null) at "end".
        const authorized = (res.socket as import("node:tls").TLSSocket).authorized !== false;
        let data = "";
        res.setEncoding("utf8");
        res.on("data", (c) => {
          data += c;
        });
        // Who answered (the server and via headers): an unexpected status then says whose it is.
        const answeredBy = [res.headers.server, res.headers.via].filter(Boolean).join(", ");
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: data, authorized, ...(answeredBy ? { answeredBy } : {}) }));
        // A response cut in the middle of its body is a failure, not a request that never ends.
        res.on("error", reject);
        res.on("close", () => {
          if (!res.complete) reject(new Error(`response aborted after HTTP ${res.statusCode} (body incomplete)`));
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    // A connection closed under the request says which kind it was: the report tells the reuse race from a server's fault.
    req.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "ECONNRESET") e.message += req.reusedSocket ? " (on a kept connection)" : " (on a new connection)";
      reject(Object.assign(e, { reusedSocket: req.reusedSocket }));
    });
    req.end(body);
  });
}

/**
 * Polls a URL every `everyMs` until stopped: how many requests failed (error or status ≥ 400).
 * Nothing is excused: a request resent because its kept connection was closed under it (see
 * httpsRequest) is one more request sent, and a failure, listed in `resent` and `failures`. The
 * pollers watch deploys, restores and recoveries that keep the edge, whose graceful stops are
 * the only ones that race with a kept connection: a reset here is the product's.
 */
export function startPoller(url: string, ca: string, everyMs = 50, address?: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const stats = { sent: 0, failed: 0, failures: [] as string[], resent: [] as string[] };
  const onResend = (what: string) => {
    stats.sent++;
    stats.failed++;
    stats.failures.push(what);
    stats.resent.push(what);
  };
  let running = true;
  const loop = (async () => {
    while (running) {
      const t = Date.now();
      stats.sent++;
      try {
        const r = await httpsRequest(url, ca, { agent, onResend, ...(address ? { address } : {}) });
        if (r.status >= 400) {
          stats.failed++;
          stats.failures.push(`HTTP ${r.status}`);
        }
      } catch (e) {
        stats.failed++;
        stats.failures.push((e as Error).message);
      }
      await new Promise((r) => setTimeout(r, Math.max(0, everyMs - (Date.now() - t))));
    }
  })();
  return {
    stats,
    stop: async () => {
      running = false;
      await loop;
      agent.destroy();
      return stats;
    },
  };
}

/** The lines `<service>: https://...` that deploy prints, as a map. */
export function parseUrls(stdout: string): Record<string, string> {
  return Object.fromEntries([...stdout.matchAll(/^([a-z][a-z0-9-]*): (https:\/\/\S+)$/gm)].map((m) => [m[1], m[2]]));
}

/** A CLI run that a test watches while it runs: to signal it, or to start another beside it. */
export function startCli(args: string[], opts: { cwd: string; env: Record<string, string> }) {
  const t0 = Date.now();
  const child = spawn(process.execPath, [CLI, ...args], { cwd: opts.cwd, env: { ...process.env, ...opts.env, CI: "true" } });
  let stdout = "";
  let stderr = "";
  const waiters: { re: RegExp; resolve: () => void }[] = [];
  const check = () => {
    for (const w of waiters.filter((x) => x.re.test(stdout))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  child.stdout.on("data", (d) => {
    stdout += d;
    check();
  });
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  child.stdin.end();
  const done = new Promise<CliResult>((resolve) =>
    child.on("close", (code, signal) =>
      resolve({ code: code ?? (signal ? 128 + 9 : -1), stdout, stderr, seconds: (Date.now() - t0) / 1000 }),
    ),
  );
  return {
    child,
    done,
    /** Resolves when standard output matches, or rejects when the run ends first. */
    waitFor: (re: RegExp) =>
      Promise.race([
        new Promise<void>((resolve) => {
          waiters.push({ re, resolve });
          check();
        }),
        done.then((r) => {
          if (!re.test(r.stdout)) throw new Error(`ended before ${re}: exit ${r.code}\n${r.stdout}\n${r.stderr}`);
        }),
      ]),
  };
}
