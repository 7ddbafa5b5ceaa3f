// Catalog throughput, instrumented vs not (bench/README.md says what it means). Needs
// `npm run build` and the set-up's base images.
//   node bench/telemetry/throughput.mjs [--seconds S] [--rounds N] [--concurrency C] [--ratio R] [--env K=V ...]
// (--env: extra variables for the instrumented container, to see what a setting costs)
// The catalog API (examples/catalog/api) built twice by the platform's own recipe, with and
// without zero-code OpenTelemetry, each container limited to 1 CPU and sending to a real
// receiver container (the platform's receiver image, a store in a temp dir) with the settings
// the platform injects. The same keep-alive load (the traffic service's request rotation) is
// sent from 127.0.0.1 to both at once, in rounds; medians of requests per second and of the
// per-round ratios.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const SECONDS = arg("seconds", 8);
const ROUNDS = arg("rounds", 5);
const EXTRA_ENV = process.argv.flatMap((a, i) => (process.argv[i - 1] === "--env" ? [a] : []));
const CONCURRENCY = arg("concurrency", 8);
const RATIO = arg("ratio", 1);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const API_DIR = join(ROOT, "examples", "catalog", "api");
const { baseImages } = await import("../../dist/home/images.js");
const { buildCaFile } = await import("../../dist/home/keys.js");
const { toolchain } = await import("../../dist/home/toolchain.js");
// The BuildKit-capable client the set-up found (the one `platform deploy` uses).
const DOCKER = process.env.PLATFORM_DOCKER_CLI || toolchain().dockerCli || "docker";
const docker = (...args) => execFileSync(DOCKER, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const { buildFastapiRecipe } = await import("../../dist/plan/recipes/index.js");
const { buildTelemetryEnv } = await import("../../dist/plan/otel-env.js");
const { ensureReceiverImage } = await import("../../dist/provider/docker/receiver.js");

const id = `${process.env.BENCH_PREFIX ?? "bench"}-otel-${process.pid}`;
const network = id;
const receiver = `${id}-receiver`;
const storeDir = mkdtempSync(join(tmpdir(), "bench-otel-store-"));
const buildDir = mkdtempSync(join(tmpdir(), "bench-otel-build-"));

function buildImage(instrument) {
  const files = Object.fromEntries(["main.py", "requirements.txt"].map((f) => [f, readFileSync(join(API_DIR, f), "utf8")]));
  const src = { files: Object.keys(files).sort(), read: (p) => files[p] };
  const images = baseImages();
  const recipe = buildFastapiRecipe(src, { python: images.python, node: images.node }, { instrument });
  const dockerfile = join(buildDir, `Dockerfile.${instrument}`);
  writeFileSync(dockerfile, recipe.dockerfile);
  const tag = `${id}-api:${instrument ? "otel" : "plain"}`;
  const ca = buildCaFile();
  execFileSync(DOCKER, ["build", "-q", "-t", tag, "-f", dockerfile, ...(ca ? ["--secret", `id=ca,src=${ca}`] : []), API_DIR], {
    env: { ...process.env, DOCKER_BUILDKIT: "1" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  return tag;
}

/** The variables the platform injects, with this run's receiver. */
function otelEnv() {
  const env = buildTelemetryEnv("bench", "preview", "api", RATIO);
  const out = [];
  for (const [k, parts] of Object.entries(env)) {
    out.push(`${k}=${parts.map((p) => (p.kind === "text" ? p.text : `http://${receiver}:4318`)).join("")}`);
  }
  return [...out, ...EXTRA_ENV];
}

function startApi(name, tag, env) {
  docker(
    "run",
    "-d",
    "--name",
    name,
    "--network",
    network,
    "--cpus",
    "1",
    "--memory",
    "512m",
    "-p",
    "127.0.0.1::8080",
    ...env.flatMap((e) => ["-e", e]),
    tag,
  );
  return Number(docker("port", name, "8080/tcp").split("\n")[0].split(":").pop());
}

const PATHS = (i) => {
  if (i % 5 === 4) return ["GET", `/products/${9000 + i}`];
  const id = 1 + (i % 10);
  return [
    ["GET", "/products"],
    ["GET", `/products/${id}`],
    ["GET", "/categories/coffee/products"],
    ["POST", "/orders"],
  ][i % 4];
};

function once(agent, port, i) {
  const [method, path] = PATHS(i);
  const body = method === "POST" ? JSON.stringify({ items: [{ product_id: 1 + (i % 10), quantity: 1 }] }) : undefined;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method,
        agent,
        headers: body ? { "content-type": "application/json", "content-length": Buffer.byteLength(body) } : {},
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function waitUp(port) {
  const agent = new Agent({ keepAlive: false });
  for (let i = 0; i < 120; i++) {
    try {
      if ((await once(agent, port, 0)) === 200) return;
    } catch {}
    await sleep(500);
  }
  throw new Error(`api on ${port} did not come up`);
}

/** Requests per second over SECONDS, CONCURRENCY keep-alive connections; any 5xx or error fails the run. */
async function load(port) {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let n = 0;
  let bad = 0;
  const end = Date.now() + SECONDS * 1000;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < end) {
        const status = await once(agent, port, n++).catch(() => 0);
        if (status === 0 || status >= 500) bad++;
      }
    }),
  );
  agent.destroy();
  if (bad) throw new Error(`${bad} failed requests on port ${port}`);
  return { rate: n / (Number(process.hrtime.bigint() - t0) / 1e9), n };
}

/** CPU seconds the container has used (its cgroup: v1 cpuacct, or v2 cpu.stat). */
function cpuSeconds(name) {
  const out = docker(
    "exec",
    name,
    "sh",
    "-c",
    "cat /sys/fs/cgroup/cpuacct/cpuacct.usage 2>/dev/null || grep usage_usec /sys/fs/cgroup/cpu.stat",
  );
  return out.startsWith("usage_usec") ? Number(out.split(" ")[1]) / 1e6 : Number(out) / 1e9;
}

/** Load both containers at once; requests per second and per CPU second of each. */
async function round(ports) {
  const names = { plain: `${id}-plain`, otel: `${id}-otel` };
  const cpu0 = { plain: cpuSeconds(names.plain), otel: cpuSeconds(names.otel) };
  const [plain, otel] = await Promise.all([load(ports.plain), load(ports.otel)]);
  const perCpu = (r, k) => r.n / (cpuSeconds(names[k]) - cpu0[k]);
  return { plain: plain.rate, otel: otel.rate, plainPerCpu: perCpu(plain, "plain"), otelPerCpu: perCpu(otel, "otel") };
}

const cleanUp = () => {
  for (const c of [`${id}-plain`, `${id}-otel`, receiver]) {
    try {
      docker("rm", "-f", c);
    } catch {}
  }
  try {
    docker("network", "rm", network);
  } catch {}
  for (const t of ["plain", "otel"]) {
    try {
      docker("rmi", `${id}-api:${t}`);
    } catch {}
  }
  rmSync(buildDir, { recursive: true, force: true });
  rmSync(storeDir, { recursive: true, force: true });
};

try {
  process.stderr.write("building the two images and the receiver image ...\n");
  const plain = buildImage(false);
  const otel = buildImage(true);
  const { tag: receiverTag } = await ensureReceiverImage(baseImages().node);
  docker("network", "create", network);
  const user = `${process.getuid()}:${process.getgid()}`;
  docker("run", "-d", "--name", receiver, "--network", network, "--user", user, "-v", `${storeDir}:/data`, receiverTag);
  const ports = { plain: startApi(`${id}-plain`, plain, []), otel: startApi(`${id}-otel`, otel, otelEnv()) };
  await Promise.all([waitUp(ports.plain), waitUp(ports.otel)]);
  // Warm both (imports, first exports) before measuring.
  await Promise.all(Object.values(ports).map((p) => load(p)));
  // Both at once in every round: the two containers see the same machine at the same moment
  // (a shared machine's load drifts between rounds), each with its own CPU and the same load.
  const results = { plain: [], otel: [], plainPerCpu: [], otelPerCpu: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const res = await round(ports);
    for (const k of Object.keys(results)) results[k].push(res[k]);
    process.stderr.write(
      `round ${r + 1}: plain ${res.plain.toFixed(0)} req/s ${res.plainPerCpu.toFixed(0)} req/CPU-s, instrumented ${res.otel.toFixed(0)} req/s ${res.otelPerCpu.toFixed(0)} req/CPU-s\n`,
    );
  }
  const spans = docker(
    "exec",
    receiver,
    "node",
    "-e",
    "const {DatabaseSync}=require('node:sqlite');const d=new DatabaseSync('/data/telemetry.sqlite',{readOnly:true});console.log(d.prepare('select count(*) n from spans').get().n)",
  );
  const p = median(results.plain);
  const o = median(results.otel);
  // Each round's two runs saw the same machine: the median of the per-round ratios.
  const ratio = median(results.otel.map((x, i) => x / results.plain[i]));
  // Requests per CPU second: what each request costs, whatever share of the machine each container got.
  const cpuRatio = median(results.otelPerCpu.map((x, i) => x / results.plainPerCpu[i]));
  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
  console.log(
    JSON.stringify({
      seconds: SECONDS,
      rounds: ROUNDS,
      concurrency: CONCURRENCY,
      sampleRatio: RATIO,
      plainReqPerSec: Math.round(p),
      instrumentedReqPerSec: Math.round(o),
      ratio: Number(ratio.toFixed(3)),
      roundRatios: results.otel.map((x, i) => Number((x / results.plain[i]).toFixed(2))),
      cpuRatio: Number(cpuRatio.toFixed(3)),
      roundCpuRatios: results.otelPerCpu.map((x, i) => Number((x / results.plainPerCpu[i]).toFixed(2))),
      extraEnv: EXTRA_ENV,
      spansStored: Number(spans.split("\n").pop()),
    }),
  );
  console.log(
    `| ${new Date().toISOString().slice(0, 10)} | ${cpus().length} cores, load ${loadavg()[0].toFixed(1)} | ${commit} | ${RATIO} | ${Math.round(p)} | ${Math.round(o)} | ${ratio.toFixed(2)} | ${cpuRatio.toFixed(2)} |${EXTRA_ENV.length ? ` ${EXTRA_ENV.join(" ")}` : ""}`,
  );
} finally {
  cleanUp();
}
