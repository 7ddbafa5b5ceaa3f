// Telemetry benchmarks (bench/README.md says what they mean). Needs `npm run build` first.
//   node bench/telemetry/run.mjs [--spans N] [--batches N] [--append]
// (a) spans/s through the real OTLP/HTTP receiver, protobuf batches of 512, next to a receiver
//     that only reads and discards the body; each in its own process, rounds interleaved.
// (b) the per-route query (routeStats) over N spans (1M by default), next to a full scan
//     count(*) of the same table; plus the other queries Studio makes.
import { execSync, spawn } from "node:child_process";
import { once } from "node:events";
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { makeBatches } from "./batches.mjs";
import { SERVICES, ROUTES, prng } from "./synthetic.mjs";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N_SPANS = arg("spans", 1_000_000);
const N_BATCHES = arg("batches", 40);
const ROUNDS = 3;
const CONCURRENCY = 2;
const here = fileURLToPath(new URL(".", import.meta.url));
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const { TelemetryStore, routeStats, routeTraces, trace } = await import("../../dist/telemetry/index.js");
const { otlp } = await import("../../dist/telemetry/otlp-schema.js");
const { normalizeSpans } = await import("../../dist/telemetry/normalize-spans.js");

async function startChild(mode, dir) {
  const child = spawn(process.execPath, [join(here, "receiver-child.mjs"), mode, ...(dir ? [dir] : [])], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const [line] = await once(createInterface({ input: child.stdout }), "line");
  return { child, url: `http://127.0.0.1:${JSON.parse(line).port}/v1/traces` };
}

/** POSTs every batch, CONCURRENCY at a time; returns spans per second. */
async function send(url, batches, spansPerBatch) {
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < batches.length) {
        const body = batches[next++];
        const res = await fetch(url, { method: "POST", body, headers: { "content-type": "application/x-protobuf" } });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`receiver answered ${res.status}`);
      }
    }),
  );
  return (batches.length * spansPerBatch) / (ms(t0) / 1000);
}

async function benchIngest() {
  // Fresh batches for every store round: a span stored once is skipped the next time.
  const sets = Array.from({ length: ROUNDS }, () => makeBatches(N_BATCHES));
  const bytes = sets[0].reduce((n, b) => n + b.length, 0) / N_BATCHES;
  const real = [];
  const base = [];
  for (let r = 0; r < ROUNDS; r++) {
    const discard = await startChild("discard");
    base.push(await send(discard.url, sets[r], 512));
    discard.child.stdin.end();
    await once(discard.child, "exit");
    const dir = mkdtempSync(join(tmpdir(), "bench-telemetry-"));
    const store = await startChild("store", dir);
    real.push(await send(store.url, sets[r], 512));
    store.child.stdin.end();
    await once(store.child, "exit");
    rmSync(dir, { recursive: true, force: true });
  }
  // Where the time goes, in this process: decode, normalize, write.
  const dir = mkdtempSync(join(tmpdir(), "bench-telemetry-"));
  const s = TelemetryStore.open({ dir, pruneIntervalMs: 0 });
  const fresh = makeBatches(N_BATCHES);
  const json = makeBatches(N_BATCHES, 512, { json: true });
  const t = { decode: 0, json: 0, normalize: 0, write: 0 };
  for (let i = 0; i < fresh.length; i++) {
    let t0 = process.hrtime.bigint();
    const msg = otlp.traceRequest.decode(fresh[i]);
    t.decode += ms(t0);
    t0 = process.hrtime.bigint();
    JSON.parse(Buffer.from(json[i]).toString());
    t.json += ms(t0);
    t0 = process.hrtime.bigint();
    normalizeSpans(msg);
    t.normalize += ms(t0);
    t0 = process.hrtime.bigint();
    s.ingestTraces(msg);
    t.write += ms(t0);
  }
  s.close();
  rmSync(dir, { recursive: true, force: true });
  const per = (x) => (x / N_BATCHES).toFixed(2);
  return {
    real: median(real),
    base: median(base),
    bytes,
    perBatchMs: { decode: per(t.decode), jsonParse: per(t.json), normalize: per(t.normalize), ingestAll: per(t.write - 0) },
  };
}

/** An OTLP JSON-shaped request of spans (cheaper to build than protobuf; the store reads both alike). */
function jsonBatch(rnd, first, count, t0Ns, stepNs) {
  const byService = new Map();
  for (let i = first; i < first + count; i++) {
    const traceNo = Math.floor(i / 4);
    const root = i % 4 === 0;
    const service = SERVICES[traceNo % SERVICES.length];
    const route = rnd() < 0.05 ? undefined : ROUTES[Math.floor(rnd() * ROUTES.length)];
    const status = route === undefined ? 404 : rnd() < 0.03 ? 500 : 200;
    const start = t0Ns + BigInt(i) * stepNs;
    const dur = BigInt(Math.floor(Math.exp(rnd() * 4 + 13)));
    const attrs = [
      { key: "http.request.method", value: { stringValue: "GET" } },
      { key: "http.response.status_code", value: { intValue: status } },
      { key: "url.path", value: { stringValue: `/items/${i % 997}` } },
      ...(route ? [{ key: "http.route", value: { stringValue: route } }] : []),
    ];
    const span = {
      traceId: traceNo.toString(16).padStart(32, "0"),
      spanId: (i + 1).toString(16).padStart(16, "0"),
      parentSpanId: root ? "" : (traceNo * 4 + 1).toString(16).padStart(16, "0"),
      name: root ? `GET ${route ?? ""}` : "SELECT items",
      kind: root ? 2 : 3,
      startTimeUnixNano: String(start),
      endTimeUnixNano: String(start + dur),
      attributes: attrs,
      status: { code: status === 500 ? 2 : 0 },
    };
    if (!byService.has(service)) byService.set(service, []);
    byService.get(service).push(span);
  }
  return {
    resourceSpans: [...byService].map(([service, spans]) => ({
      resource: {
        attributes: [
          { key: "service.name", value: { stringValue: service } },
          { key: "platform.project", value: { stringValue: "shop" } },
          { key: "platform.env", value: { stringValue: "preview" } },
        ],
      },
      scopeSpans: [{ spans }],
    })),
  };
}

function benchQuery() {
  const dir = mkdtempSync(join(tmpdir(), "bench-telemetry-q-"));
  const store = TelemetryStore.open({ dir, pruneIntervalMs: 0, retention: { maxBytes: 1e12 } });
  const rnd = prng(3);
  const hourNs = 3600n * 1_000_000_000n;
  const t0Ns = BigInt(Date.now()) * 1_000_000n - hourNs;
  const stepNs = hourNs / BigInt(N_SPANS);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N_SPANS; i += 512) store.ingestTraces(jsonBatch(rnd, i, Math.min(512, N_SPANS - i), t0Ns, stepNs));
  const fillS = ms(t0) / 1000;
  const range = { project: "shop", env: "preview", from: Number(t0Ns / 1_000_000n), to: Date.now() + 1 };
  const time = (fn, runs = 5) => {
    const xs = [];
    let out;
    for (let k = 0; k < runs; k++) {
      const t = process.hrtime.bigint();
      out = fn();
      xs.push(ms(t));
    }
    return { ms: median(xs), out };
  };
  const scan = time(() => store.db.prepare("SELECT count(*) AS n FROM spans WHERE end_ns >= start_ns").get().n);
  const stats = time(() => routeStats(store, range));
  const raw = time(
    () =>
      store.db
        .prepare(`SELECT service, http_method, coalesce(http_route, '(unmatched)') AS route, count(*) AS n,
      percentile(end_ns - start_ns, 50), percentile(end_ns - start_ns, 95), percentile(end_ns - start_ns, 99)
      FROM spans WHERE kind = 2 AND project = ? AND env = ? GROUP BY 1, 2, 3`)
        .all("shop", "preview"),
    3,
  );
  const recent = time(() => routeTraces(store, { ...range, service: "api", route: "/items/{id}", limit: 20 }));
  const slowest = time(() => routeTraces(store, { ...range, service: "api", route: "/items/{id}", limit: 20, order: "slowest" }));
  const one = time(() => trace(store, recent.out[0].traceId));
  const served = stats.out.routes.reduce((n, r) => n + r.count, 0);
  const bytes = store.sizeBytes();
  store.close();
  rmSync(dir, { recursive: true, force: true });
  return { fillS, scan, stats, raw, recent, slowest, one, served, groups: stats.out.routes.length, bytes };
}

const commit = (() => {
  try {
    return execSync("git rev-parse --short HEAD", { encoding: "utf8" }).trim();
  } catch {
    return "?";
  }
})();
const machine = `${cpus().length} cores ${cpus()[0]?.model ?? ""}`.trim();
const load = loadavg()
  .map((x) => x.toFixed(1))
  .join(" ");
console.log(`telemetry benchmarks: node ${process.version}, ${machine}, load ${load}, commit ${commit}`);
const a = await benchIngest();
console.log(`(a) ingest, ${N_BATCHES} protobuf batches of 512 spans (${(a.bytes / 1024).toFixed(0)} KiB each), ${ROUNDS} rounds, medians:`);
console.log(
  `    receiver + store ${Math.round(a.real)} spans/s | read-and-discard baseline ${Math.round(a.base)} spans/s | ratio ${(a.real / a.base).toFixed(2)}`,
);
console.log(
  `    per batch in-process: protobuf decode ${a.perBatchMs.decode} ms, JSON.parse of the same batch as OTLP JSON ${a.perBatchMs.jsonParse} ms, normalize ${a.perBatchMs.normalize} ms, normalize+store ${a.perBatchMs.ingestAll} ms`,
);
const b = benchQuery();
console.log(
  `(b) ${N_SPANS} spans stored in ${b.fillS.toFixed(1)} s (${Math.round(N_SPANS / b.fillS)} spans/s in-process), ${(b.bytes / 1e6).toFixed(0)} MB`,
);
console.log(
  `    routeStats (per-route, ${b.groups} rows, ${b.served} server spans) ${b.stats.ms.toFixed(1)} ms | baseline full-scan count(*) ${b.scan.ms.toFixed(1)} ms | ratio ${(b.stats.ms / b.scan.ms).toFixed(2)}`,
);
console.log(`    for comparison, the same per-route aggregate computed from the span rows: ${b.raw.ms.toFixed(0)} ms`);
console.log(
  `    routeTraces recent ${b.recent.ms.toFixed(1)} ms, slowest ${b.slowest.ms.toFixed(1)} ms; trace() ${b.one.ms.toFixed(2)} ms`,
);
if (process.argv.includes("--append")) {
  const date = new Date().toISOString().slice(0, 10);
  appendFileSync(
    new URL("../README.md", import.meta.url),
    `| ${date} | ${machine}, load ${load} | ${commit} | ${Math.round(a.real)} | ${Math.round(a.base)} | ${(a.real / a.base).toFixed(2)} | ${N_SPANS} | ${b.stats.ms.toFixed(1)} ms | ${b.scan.ms.toFixed(1)} ms | ${(b.stats.ms / b.scan.ms).toFixed(2)} | ${b.raw.ms.toFixed(0)} ms |\n`,
  );
}
