// Which embedded store for spans: node:sqlite or DuckDB? Measured, not guessed.
// Same synthetic rows, same columns, same per-route query, in one process, one after the
// other. DuckDB is not a dependency of the project: point DUCKDB_DIR at a directory where
// `npm install @duckdb/node-api` was run to include it (see bench/README.md).
//   node bench/telemetry/store-choice.mjs [SPANS=1000000]
import { DatabaseSync } from "node:sqlite";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { makeSpanRows } from "./synthetic.mjs";

const N = Number(process.argv[2] ?? 1_000_000);
const BATCH = 512;
const rows = makeSpanRows(N);
const dir = mkdtempSync(join(tmpdir(), "store-choice-"));
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function sqlite(rollup = false) {
  const file = join(dir, rollup ? "spans-rollup.sqlite" : "spans.sqlite");
  const db = new DatabaseSync(file);
  db.exec(`PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;
    CREATE TABLE spans (trace_id BLOB, span_id BLOB, parent_span_id BLOB, name TEXT, kind INT,
      service TEXT, project TEXT, env TEXT, start_ns INT, end_ns INT, duration_ns INT,
      status_code INT, http_route TEXT, http_method TEXT, http_status INT, attributes TEXT, resource TEXT);
    CREATE INDEX spans_trace ON spans(trace_id);
    CREATE INDEX spans_time ON spans(start_ns);
    CREATE INDEX spans_route ON spans(project, env, kind, start_ns);
    CREATE TABLE rollup (minute INT, project TEXT, env TEXT, service TEXT, method TEXT, route TEXT, status INT,
      bucket INT, n INT, PRIMARY KEY (project, env, minute, service, method, route, status, bucket)) WITHOUT ROWID;`);
  const up = db.prepare(`INSERT INTO rollup VALUES (?,?,?,?,?,?,?,?,?)
    ON CONFLICT DO UPDATE SET n = n + excluded.n`);
  const ins = db.prepare(`INSERT INTO spans VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`);
  let t0 = process.hrtime.bigint();
  for (let i = 0; i < rows.length; i += BATCH) {
    db.exec("BEGIN");
    for (const r of rows.slice(i, i + BATCH)) {
      ins.run(
        r.traceId,
        r.spanId,
        r.parentSpanId,
        r.name,
        r.kind,
        r.service,
        r.project,
        r.env,
        r.startNs,
        r.endNs,
        r.endNs - r.startNs,
        r.statusCode,
        r.route,
        r.method,
        r.status,
        r.attributes,
        r.resource,
      );
    }
    if (rollup) {
      // Pre-aggregate server spans per minute and log-scale duration bucket, as a receiver would.
      const acc = new Map();
      for (const r of rows.slice(i, i + BATCH)) {
        if (r.kind !== 2) continue;
        const minute = r.startNs / 60_000_000_000n;
        const bucket = Math.floor(Math.log(Number(r.endNs - r.startNs)) / Math.log(1.1));
        const key = `${minute}|${r.service}|${r.method}|${r.route ?? "(unmatched)"}|${r.status}|${bucket}`;
        acc.set(key, (acc.get(key) ?? 0) + 1);
      }
      for (const [key, n] of acc) {
        const [minute, service, method, route, status, bucket] = key.split("|");
        up.run(BigInt(minute), "shop", "preview", service, method, route, Number(status), Number(bucket), n);
      }
    }
    db.exec("COMMIT");
  }
  const ingestMs = ms(t0);
  const q = rollup
    ? db.prepare(`SELECT service, method, route, bucket, sum(n) AS n FROM rollup
    WHERE project = ? AND env = ? AND minute >= ? / 60000000000 AND minute < ? / 60000000000
    GROUP BY service, method, route, bucket`)
    : db.prepare(`SELECT service, http_method, coalesce(http_route,'(unmatched)') AS route, count(*) AS n,
      percentile(duration_ns, 50) AS p50, percentile(duration_ns, 95) AS p95, percentile(duration_ns, 99) AS p99
    FROM spans WHERE project = ? AND env = ? AND kind = 2 AND start_ns >= ? AND start_ns < ?
    GROUP BY 1, 2, 3`);
  const scan = db.prepare(`SELECT count(*) AS n FROM spans WHERE attributes IS NOT NULL`);
  const times = { query: [], scan: [] };
  let groups = 0;
  for (let k = 0; k < 5; k++) {
    t0 = process.hrtime.bigint();
    const res = q.all("shop", "preview", 0n, 1n << 62n);
    groups = rollup ? new Set(res.map((r) => `${r.service} ${r.method} ${r.route}`)).size : res.length;
    times.query.push(ms(t0));
    t0 = process.hrtime.bigint();
    scan.get();
    times.scan.push(ms(t0));
  }
  db.close();
  return { ingestMs, query: median(times.query), scan: median(times.scan), groups, bytes: statSync(file).size };
}

async function duckdb() {
  const base = process.env.DUCKDB_DIR;
  if (!base) return null;
  const req = createRequire(join(base, "package.json"));
  const { DuckDBInstance } = await import(pathToFileURL(req.resolve("@duckdb/node-api")).href);
  const file = join(dir, "spans.duckdb");
  const inst = await DuckDBInstance.create(file);
  const con = await inst.connect();
  await con.run(`CREATE TABLE spans (trace_id BLOB, span_id BLOB, parent_span_id BLOB, name VARCHAR, kind INT,
      service VARCHAR, project VARCHAR, env VARCHAR, start_ns BIGINT, end_ns BIGINT, duration_ns BIGINT,
      status_code INT, http_route VARCHAR, http_method VARCHAR, http_status INT, attributes VARCHAR, resource VARCHAR)`);
  let t0 = process.hrtime.bigint();
  for (let i = 0; i < rows.length; i += BATCH) {
    const a = await con.createAppender("spans");
    for (const r of rows.slice(i, i + BATCH)) {
      a.appendBlob(r.traceId);
      a.appendBlob(r.spanId);
      if (r.parentSpanId) a.appendBlob(r.parentSpanId);
      else a.appendNull();
      a.appendVarchar(r.name);
      a.appendInteger(r.kind);
      a.appendVarchar(r.service);
      a.appendVarchar(r.project);
      a.appendVarchar(r.env);
      a.appendBigInt(r.startNs);
      a.appendBigInt(r.endNs);
      a.appendBigInt(r.endNs - r.startNs);
      a.appendInteger(r.statusCode);
      if (r.route) a.appendVarchar(r.route);
      else a.appendNull();
      a.appendVarchar(r.method);
      a.appendInteger(r.status);
      a.appendVarchar(r.attributes);
      a.appendVarchar(r.resource);
      a.endRow();
    }
    a.closeSync(); // one flush per batch, as a receiver would do per request
  }
  const ingestMs = ms(t0);
  const q = `SELECT service, http_method, coalesce(http_route,'(unmatched)') AS route, count(*) AS n,
      quantile_cont(duration_ns, [0.5, 0.95, 0.99]) AS p
    FROM spans WHERE project = $1 AND env = $2 AND kind = 2 AND start_ns >= $3 AND start_ns < $4 GROUP BY 1, 2, 3`;
  const times = { query: [], scan: [] };
  let groups = 0;
  for (let k = 0; k < 5; k++) {
    t0 = process.hrtime.bigint();
    groups = (await con.runAndReadAll(q, ["shop", "preview", 0n, 1n << 62n])).getRows().length;
    times.query.push(ms(t0));
    t0 = process.hrtime.bigint();
    await con.runAndReadAll(`SELECT count(*) FROM spans WHERE attributes IS NOT NULL`);
    times.scan.push(ms(t0));
  }
  con.closeSync();
  inst.closeSync?.();
  return { ingestMs, query: median(times.query), scan: median(times.scan), groups, bytes: statSync(file).size };
}

const report = (name, r) =>
  r &&
  console.log(
    `${name.padEnd(14)} ingest ${Math.round(N / (r.ingestMs / 1000))} spans/s` +
      ` (${(r.ingestMs / 1000).toFixed(1)} s) | per-route query ${r.query.toFixed(0)} ms (${r.groups} groups)` +
      ` | full-scan count(*) ${r.scan.toFixed(0)} ms | file ${(r.bytes / 1e6).toFixed(0)} MB`,
  );
console.log(`${N} spans, batches of ${BATCH}, node ${process.version}`);
report("sqlite", sqlite());
report("sqlite+rollup", sqlite(true));
report("duckdb", await duckdb());
rmSync(dir, { recursive: true, force: true });
