// The HTTPS edge against the proxies our peers ship in its position (issue 29): the same client
// sends the same requests to the same upstream container through our edge (Caddy, started by the
// provider's own startEdge with the product's Caddyfile), Traefik v3 (Coolify, Dokploy) and nginx
// from Debian (CapRover, Dokku), all in the host's network with TLS on 127.0.0.1, and straight
// to the upstream's own TLS port twice: through docker-proxy (its port published on 127.0.0.1)
// and to the container's IP (no docker-proxy, as none of the proxies goes through it).
// Rounds interleave every path at 1, 8 and 64 connections (the order rotates per round);
// medians with min and max, the machine's load before and after, CPU per request per process.
// Usage: npm run build && node bench/edge/run.mjs [SECONDS_PER_CASE] [ROUNDS]
// BENCH_EDGE_PATH=/chunked asks for chunked responses instead of ones with a Content-Length;
// BENCH_EDGE_PROFILE=SECONDS then takes a CPU profile of our edge at 64 connections (pprof);
// BENCH_EDGE_ONLY=REGEX runs only the paths whose label matches (and the baseline);
// BENCH_EDGE_CONNS=8,64 changes the connection counts.
// Every round's numbers are left in $TMPDIR/platform-bench-edge-PID.json.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { cgroupOf, get, measure, peakRssMiB } from "./measure.mjs";
import { median, medianSpread } from "../compare/measure.mjs";
import { caddyProfile, pprofTop } from "./profile.mjs";
import { buildNginxImage, startNginx, startTraefik, traefikBinary } from "./peers.mjs";
import { freePort, makeCert, sh, startUpstream } from "./upstream.mjs";

const ROOT = resolve(import.meta.dirname, "..", "..");
const SECONDS = Number(process.argv[2] ?? 5);
const ROUNDS = Number(process.argv[3] ?? 3);
const CONNECTIONS = (process.env.BENCH_EDGE_CONNS || "1,8,64").split(",").map(Number);
const PATH = process.env.BENCH_EDGE_PATH || "/";
/** The path the others' added latency is measured against (always run). */
const BASELINE = "direct, container IP";
const home = process.env.PLATFORM_HOME || join(process.env.HOME, ".platform");
const images = JSON.parse(readFileSync(join(home, "images.json"), "utf8"));
const caddyImage = process.env.PLATFORM_CADDY_IMAGE || images.caddy;
const { startEdge } = await import(join(ROOT, "dist/provider/docker/edge.js"));
const { ensureResolver, edgeResolverContainer } = await import(join(ROOT, "dist/provider/docker/edge-resolver.js"));
const { buildEdgeCaddyfile } = await import(join(ROOT, "dist/provider/docker/edge-config.js"));
const { docker } = await import(join(ROOT, "dist/docker-client.js"));

const tag = `platform-bench-edge-${process.pid}`;
const dir = mkdtempSync(join(tmpdir(), `${tag}-`));
const created = { containers: [], volumes: [], networks: [tag] };
const loadavg = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const container = async (c) => ({ cgroup: cgroupOf((await c.inspect()).State.Pid) });

/**
 * Our edge as the provider starts it (host network, its resolver on the bench's network), with
 * the product's Caddyfile or a variant of it (`edit`).
 */
async function startOurEdge(port, n, edit = (c) => c) {
  const name = `${tag}-caddy${n}`;
  process.env.PLATFORM_EDGE_NAME = name; // its own data volume (local CA) and resolver
  created.volumes.push(`${name}-data`); // made by the engine even when the start fails
  created.networks.push(edgeResolverContainer());
  const resolverId = await ensureResolver(caddyImage, [tag]);
  created.containers.push(resolverId);
  const caddyfile = edit(buildEdgeCaddyfile("localhost", port));
  const c = await startEdge(name, { network: tag, image: caddyImage, httpsPort: port, appsDomain: "localhost" }, "bench", caddyfile);
  created.containers.push(c.id);
  let ca;
  for (let i = 0; i < 50 && !ca; i++) {
    try {
      ca = sh("docker", ["exec", name, "cat", "/data/caddy/pki/authorities/local/root.crt"]);
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const cpu = { proxy: await container(c), resolver: await container(docker().getContainer(resolverId)) };
  return { c, target: { port, host: "bench.localhost", ca, path: PATH, cpu } };
}

/** The product's Caddyfile, and the one before issue 29 (Caddy's default pool: 32 idle upstream connections). */
const OUR_EDGES = {
  "our edge (Caddy 2.11)": undefined,
  "our edge, idle pool 32 (before)": (c) => c.replace(/\t+keepalive_idle_conns_per_host \S+\n/, ""),
};

/** nginx from Debian at its best, and as Dokku and CapRover configure it (bench/edge/peers.mjs nginxConf). */
const NGINX = {
  "nginx 1.22, tuned (keep-alive pool)": "tuned",
  "nginx 1.22 as Dokku ships it": "dokku",
  "nginx 1.22 as CapRover ships it": "caprover",
};
/** The peers as they ship (Traefik's configuration is what Coolify's and Dokploy's Docker provider makes: a router per app, its container's IP, Go's pool). */
const AS_SHIPPED = ["Traefik 3.7.13", "nginx 1.22 as Dokku ships it", "nginx 1.22 as CapRover ships it"];

async function main() {
  const loadBefore = loadavg();
  console.error(`load before: ${loadBefore}`);
  const binary = traefikBinary();
  buildNginxImage();
  const tls = makeCert(dir);
  await docker().createNetwork({ Name: tag, Labels: { "platform.managed": "true" } });
  const up = await startUpstream(docker(), images.node, tag, `${tag}-app`, tls, created);
  const app = await container(docker().getContainer(`${tag}-app`));
  const proxyPid = sh("pgrep", ["-f", `docker-proxy .*-host-port ${up.port} `])
    .trim()
    .split("\n")[0];
  const direct = { port: 8443, address: up.ip, host: "direct.localhost", ca: tls.cert, path: PATH };
  const peer = (port) => ({ port, host: "bench.localhost", ca: tls.cert, path: PATH });
  const edges = [];
  for (const [i, edit] of Object.values(OUR_EDGES).entries()) edges.push(await startOurEdge(await freePort(), i, edit));
  const traefikPort = await freePort();
  const traefik = await startTraefik(
    docker(),
    `${tag}-traefik`,
    dir,
    traefikPort,
    up.ip,
    binary,
    images.debian ?? "platform-local/debian:bookworm",
    created,
  );
  const nginx = {};
  for (const flavour of Object.values(NGINX)) {
    const port = await freePort();
    nginx[flavour] = { port, c: await startNginx(docker(), `${tag}-nginx-${flavour}`, dir, port, up.ip, created, flavour) };
  }
  const targets = {
    "direct, docker-proxy": { ...direct, address: "127.0.0.1", port: up.port, cpu: { "docker-proxy": { pid: proxyPid }, app } },
    [BASELINE]: { ...direct, cpu: { app } },
    ...Object.fromEntries(Object.keys(OUR_EDGES).map((label, i) => [label, { ...edges[i].target, cpu: { ...edges[i].target.cpu, app } }])),
    "Traefik 3.7.13": { ...peer(traefikPort), cpu: { proxy: await container(traefik), app } },
    ...Object.fromEntries(
      await Promise.all(
        Object.entries(NGINX).map(async ([label, f]) => [
          label,
          { ...peer(nginx[f].port), cpu: { proxy: await container(nginx[f].c), app } },
        ]),
      ),
    ),
  };
  const dials = async () => Number((await get(undefined, direct, "/dials")).body);
  for (const [label, t] of Object.entries(targets)) {
    for (let i = 0; ; i++) {
      try {
        console.error(`${label}: ${(await get(undefined, t)).tls}`);
        break;
      } catch (err) {
        if (i === 50) throw err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }
  const results = {};
  const only = process.env.BENCH_EDGE_ONLY ? new RegExp(process.env.BENCH_EDGE_ONLY) : undefined;
  const labels = Object.keys(targets).filter((l) => !only || l === BASELINE || only.test(l));
  for (let round = 0; round < ROUNDS; round++) {
    const order = labels.map((_, i) => labels[(i + round) % labels.length]);
    for (const c of CONNECTIONS) {
      for (const label of order) {
        const r = await measure(targets[label], c, SECONDS, targets[label].cpu, dials);
        results[`${label}|${c}`] ??= [];
        results[`${label}|${c}`].push(r);
        console.error(
          `round ${round + 1} c=${c} ${label}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms${r.errors.length ? `, ${r.errors.length} errors: ${r.errors[0]}` : ""}`,
        );
      }
    }
  }
  const rss = Object.fromEntries(labels.filter((l) => targets[l].cpu.proxy).map((l) => [l, peakRssMiB(targets[l].cpu.proxy)]));
  report(results, labels, loadBefore, rss);
  writeFileSync(join(tmpdir(), `${tag}.json`), JSON.stringify({ path: PATH, seconds: SECONDS, loadBefore, results }));
  const seconds = Number(process.env.BENCH_EDGE_PROFILE ?? 0);
  if (seconds) {
    const file = join(tmpdir(), `${tag}.pprof`);
    const edgeTarget = targets["our edge (Caddy 2.11)"];
    await Promise.all([
      caddyProfile((await edges[0].c.inspect()).State.Pid, seconds, file),
      measure(edgeTarget, 64, seconds + 1, {}, dials),
    ]);
    console.log(`\nCPU profile of our edge at 64 connections (${seconds} s; ${file}):\n\n${pprofTop(file)}`);
  }
}

const spread = (xs, d) => medianSpread(xs, (v) => v.toFixed(d));

function report(results, labels, loadBefore, rss) {
  const of = (label, c, k) => results[`${label}|${c}`].map((r) => r[k]);
  const med = (label, c, k) => median(of(label, c, k));
  const peers = labels.filter((l) => !l.startsWith("direct") && !l.startsWith("our"));
  console.log(
    `\n${new Date().toISOString()}, ${ROUNDS} interleaved rounds of ${SECONDS} s per case, GET ${PATH}; load (1/5/15 min) before ${loadBefore}, after ${loadavg()}`,
  );
  console.log(`edge image ${caddyImage}; medians (min–max) over rounds; added = p50 − p50 of "${BASELINE}"\n`);
  console.log(
    "| path | c | req/s | p50 ms | p99 ms (median) | p50 added | req/s vs best peer | req/s vs best peer as shipped |\n|---|---|---|---|---|---|---|---|",
  );
  for (const c of CONNECTIONS) {
    const best = (ls) => Math.max(...ls.map((p) => med(p, c, "rps")));
    const [bestPeer, bestShipped] = [best(peers), best(AS_SHIPPED.filter((l) => labels.includes(l)))];
    for (const label of labels) {
      const added = label === BASELINE ? "" : `${(med(label, c, "p50") - med(BASELINE, c, "p50")).toFixed(2)} ms`;
      const vs = (b) => (label.startsWith("direct") || !Number.isFinite(b) ? "" : `${((100 * med(label, c, "rps")) / b).toFixed(0)} %`);
      console.log(
        `| ${label} | ${c} | ${spread(of(label, c, "rps"), 0)} | ${spread(of(label, c, "p50"), 2)} | ${med(label, c, "p99").toFixed(2)} | ${added} | ${vs(bestPeer)} | ${vs(bestShipped)} |`,
      );
    }
  }
  const procs = ["client", "docker-proxy", "proxy", "resolver", "app"];
  console.log("\nCPU per request (µs, medians over rounds), by process on the path; client connections and upstream dials per request\n");
  console.log(`| path | c | ${procs.join(" | ")} | connects | dials |\n|---|---|${procs.map(() => "---").join("|")}|---|---|`);
  for (const c of CONNECTIONS.filter((n) => n > 1)) {
    for (const label of labels) {
      const cell = (p) => {
        const xs = results[`${label}|${c}`].map((r) => r.perRequest[p]).filter((x) => x !== undefined);
        return xs.length ? median(xs).toFixed(0) : "–";
      };
      const d = label.startsWith("direct") ? "–" : median(of(label, c, "perRequest").map((p) => p.dials)).toFixed(3);
      const connects = median(of(label, c, "perRequest").map((p) => p.connects)).toFixed(3);
      console.log(`| ${label} | ${c} | ${procs.map(cell).join(" | ")} | ${connects} | ${d} |`);
    }
  }
  console.log("\nPeak RSS of each proxy over the run (MiB: the sum of its container's processes' high-water marks)\n");
  console.log(
    `| path | peak RSS |\n|---|---|\n${Object.entries(rss)
      .map(([l, m]) => `| ${l} | ${m.toFixed(0)} |`)
      .join("\n")}`,
  );
}

/** Removes what the run made; also on Ctrl-C or SIGTERM. */
async function cleanUp() {
  for (const id of created.containers)
    await docker()
      .getContainer(id)
      .remove({ force: true, v: true })
      .catch(() => undefined);
  for (const v of created.volumes)
    await docker()
      .getVolume(v)
      .remove()
      .catch(() => undefined);
  for (const n of created.networks)
    await docker()
      .getNetwork(n)
      .remove()
      .catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}
for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => cleanUp().then(() => process.exit(130)));

try {
  await main();
} finally {
  await cleanUp();
}
