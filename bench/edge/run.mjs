// The HTTPS edge's overhead: the same client sends the same requests to the same container
// through the edge (Caddy, TLS, then plain HTTP to the container's alias) and straight to the
// container over TLS (its own TLS port, published on 127.0.0.1 like the edge's), interleaved in
// one run. Goals (issue 17): p50 added <= 1 ms at 1 connection; throughput at 8 connections
// >= 90 % of the direct one. The edge is started by the provider's own code with the product's
// Caddyfile; variants of that Caddyfile show where the cost is.
// Usage: npm run build && node bench/edge/run.mjs [SECONDS_PER_CASE] [ROUNDS]
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { createServer } from "node:net";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..", "..");
const SECONDS = Number(process.argv[2] ?? 5);
const ROUNDS = Number(process.argv[3] ?? 3);
const home = process.env.PLATFORM_HOME || join(process.env.HOME, ".platform");
const images = JSON.parse(readFileSync(join(home, "images.json"), "utf8"));
const caddyImage = process.env.PLATFORM_CADDY_IMAGE || images.caddy;
const { startEdge } = await import(join(ROOT, "dist/provider/docker/edge.js"));
const { ensureResolver, edgeResolverContainer } = await import(join(ROOT, "dist/provider/docker/edge-resolver.js"));
const { buildEdgeCaddyfile } = await import(join(ROOT, "dist/provider/docker/edge-config.js"));
const { docker } = await import(join(ROOT, "dist/docker-client.js"));

const tag = `platform-bench-edge-${process.pid}`;
const created = { containers: [], volumes: [], networks: [tag] };
const sh = (cmd, args, input) => execFileSync(cmd, args, { input, encoding: "utf8" });

function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer()
      .listen(0, "127.0.0.1", () => {
        const { port } = s.address();
        s.close(() => ok(port));
      })
      .on("error", fail);
  });
}

// The upstream: one Node process answering the same small JSON on 8080 (plain, for the edge)
// and 8443 (TLS, the direct baseline), so both paths end in the same container and process.
// GET /dials on the TLS port counts the connections the edge has opened to the plain port.
const SERVER = `const http = require("http"), https = require("https");
let dials = 0;
const h = (q, s) => { s.writeHead(200, { "content-type": "application/json" }); s.end(q.url === "/dials" ? String(dials) : '{"status":"ok"}'); };
http.createServer(h).on("connection", () => dials++).listen(8080);
https.createServer({ key: process.env.TLS_KEY, cert: process.env.TLS_CERT }, h).listen(8443);`;

async function startUpstream() {
  sh("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-days",
    "1",
    "-subj",
    "/CN=direct.localhost",
    "-addext",
    "subjectAltName=DNS:direct.localhost",
    "-keyout",
    `/tmp/${tag}.key`,
    "-out",
    `/tmp/${tag}.crt`,
  ]);
  const cert = readFileSync(`/tmp/${tag}.crt`, "utf8");
  await docker().createNetwork({ Name: tag, Labels: { "platform.managed": "true" } });
  const port = await freePort();
  const c = await docker().createContainer({
    name: `${tag}-app`,
    Image: images.node,
    Entrypoint: ["node", "-e", SERVER],
    Env: [`TLS_KEY=${readFileSync(`/tmp/${tag}.key`, "utf8")}`, `TLS_CERT=${cert}`],
    ExposedPorts: { "8443/tcp": {} },
    HostConfig: { NetworkMode: tag, PortBindings: { "8443/tcp": [{ HostIp: "127.0.0.1", HostPort: String(port) }] } },
    NetworkingConfig: { EndpointsConfig: { [tag]: { Aliases: ["bench.edge"] } } },
  });
  created.containers.push(c.id);
  await c.start();
  return { port, ca: cert };
}

/**
 * An edge as the provider starts it (in the host's network, its resolver on the bench's network),
 * with the Caddyfile `caddyfile(port)` makes, on a free port of 127.0.0.1.
 */
async function startBenchEdge(name, caddyfile) {
  process.env.PLATFORM_EDGE_NAME = name; // its own data volume (local CA) and resolver: platform-bench-edge-...-data, -dns
  const port = await freePort();
  created.volumes.push(`${name}-data`); // made by the engine even when the start fails
  created.networks.push(edgeResolverContainer());
  created.containers.push(await ensureResolver(caddyImage, [tag]));
  const c = await startEdge(name, { network: tag, image: caddyImage, httpsPort: port, appsDomain: "localhost" }, "bench", caddyfile(port));
  created.containers.push(c.id);
  return { port, name };
}

async function edgeCa(name) {
  for (let i = 0; i < 50; i++) {
    try {
      return sh("docker", ["exec", name, "cat", "/data/caddy/pki/authorities/local/root.crt"]);
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`no local CA in ${name}`);
}

// CPU seconds a process (all its threads) has used: where a request's cost goes.
function cpuSeconds(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}
const containerPid = (name) => sh("docker", ["inspect", "-f", "{{.State.Pid}}", name]).trim();
const proxyPid = (port) =>
  sh("pgrep", ["-f", `docker-proxy .*-host-port ${port} `])
    .trim()
    .split("\n")[0];

function get(agent, target, path = "/") {
  return new Promise((ok, fail) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: target.port,
        path,
        servername: target.host,
        ca: target.ca,
        agent,
        headers: { host: `${target.host}:${target.port}` },
      },
      (res) => {
        let body = "";
        res.on("data", (d) => {
          body += d;
        });
        res.on("end", () => (res.statusCode === 200 ? ok(body) : fail(new Error(`HTTP ${res.statusCode}`))));
      },
    );
    req.on("error", fail);
    req.end();
  });
}

/** c keep-alive connections, each sending one request at a time, for `seconds` after a 1 s warm-up. */
async function measure(target, c, seconds) {
  const agent = new Agent({ keepAlive: true, maxSockets: c });
  const lat = [];
  let measuring = false;
  let stop = false;
  const loop = async () => {
    while (!stop) {
      const t0 = performance.now();
      await get(agent, target);
      if (measuring) lat.push(performance.now() - t0);
    }
  };
  const loops = Array.from({ length: c }, loop);
  await new Promise((r) => setTimeout(r, 1000));
  const pids = { ...target.pids, dockerd: sh("pidof", ["dockerd"]).trim() };
  const cpu0 = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
  const client0 = process.cpuUsage();
  const dials0 = Number(await get(undefined, direct, "/dials"));
  measuring = true;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  measuring = false;
  const elapsed = (performance.now() - t0) / 1000;
  const client = process.cpuUsage(client0);
  // CPU microseconds per request, per process on the path
  const perRequest = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, ((cpuSeconds(pid) - cpu0[k]) * 1e6) / lat.length]));
  perRequest.client = (client.user + client.system) / lat.length;
  perRequest.dials = (Number(await get(undefined, direct, "/dials")) - dials0) / lat.length;
  stop = true;
  await Promise.all(loops);
  agent.destroy();
  lat.sort((a, b) => a - b);
  return { rps: lat.length / elapsed, p50: lat[Math.floor(lat.length * 0.5)], p99: lat[Math.floor(lat.length * 0.99)], perRequest };
}

let direct; // where /dials is read
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const product = (port) => buildEdgeCaddyfile("localhost", port);
  const upstream = await startUpstream();
  const appPid = containerPid(`${tag}-app`);
  direct = { port: upstream.port, host: "direct.localhost", ca: upstream.ca };
  const targets = {
    direct: {
      port: upstream.port,
      host: "direct.localhost",
      ca: upstream.ca,
      pids: { "docker-proxy": proxyPid(upstream.port), app: appPid },
    },
  };
  // the product's Caddyfile (upstream connections kept open), the one before (a dial per request:
  // what the drain of Node images made unnecessary, see edge-config.ts)
  // and the product's without what makes POSTs survive a swap (retries on any method, buffered bodies)
  const variants = {
    edge: product,
    "edge, a dial per request (keepalive off)": (port) => product(port).replace(/keepalive \S+/, "keepalive off"),
    "edge, no retries or body buffers": (port) =>
      product(port)
        .replace(/\t+lb_retry_match \{[^}]*\}\n/, "")
        .replace(/\t+request_buffers \S+\n/, ""),
  };
  for (const [label, caddyfile] of Object.entries(variants)) {
    const e = await startBenchEdge(`${tag}-${Object.keys(targets).length}`, caddyfile);
    targets[label] = {
      port: e.port,
      host: "bench.localhost",
      ca: await edgeCa(e.name),
      pids: { caddy: containerPid(e.name), app: appPid }, // in the host network: no docker-proxy
    };
  }
  const results = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of [1, 8]) {
      for (const [label, target] of Object.entries(targets)) {
        const r = await measure(target, c, SECONDS);
        results[`${label}|${c}`] ??= [];
        results[`${label}|${c}`].push(r);
        console.error(
          `round ${round + 1} c=${c} ${label}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms`,
        );
      }
    }
  }
  const med = (label, c, k) => median(results[`${label}|${c}`].map((r) => r[k]));
  console.log(`\nedge image ${caddyImage}; ${ROUNDS} interleaved rounds of ${SECONDS} s per case; medians\n`);
  console.log("| path | c | req/s | p50 | p99 | p50 added | throughput vs direct |\n|---|---|---|---|---|---|---|");
  for (const c of [1, 8]) {
    for (const label of Object.keys(targets)) {
      const added = label === "direct" ? "" : `${(med(label, c, "p50") - med("direct", c, "p50")).toFixed(2)} ms`;
      const ratio = label === "direct" ? "" : `${((100 * med(label, c, "rps")) / med("direct", c, "rps")).toFixed(0)} %`;
      console.log(
        `| ${label} | ${c} | ${med(label, c, "rps").toFixed(0)} | ${med(label, c, "p50").toFixed(2)} ms | ${med(label, c, "p99").toFixed(2)} ms | ${added} | ${ratio} |`,
      );
    }
  }
  console.log("\nCPU per request (µs, medians), by process on the path, at 8 connections\n");
  const procs = ["client", "docker-proxy", "caddy", "app", "dockerd"];
  console.log("(and upstream dials per request: a dial is a DNS lookup in dockerd's embedded DNS plus a TCP connect)\n");
  console.log(`| path | ${procs.join(" | ")} | upstream dials per request |\n|---|${procs.map(() => "---").join("|")}|---|`);
  for (const label of Object.keys(targets)) {
    const cell = (p) => {
      const xs = results[`${label}|8`].map((r) => r.perRequest[p]).filter((x) => x !== undefined);
      return xs.length ? median(xs).toFixed(0) : "–";
    };
    const dials = label === "direct" ? "–" : median(results[`${label}|8`].map((r) => r.perRequest.dials)).toFixed(3);
    console.log(`| ${label} | ${procs.map(cell).join(" | ")} | ${dials} |`);
  }
}

try {
  await main();
} finally {
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
  sh("rm", ["-f", `/tmp/${tag}.key`, `/tmp/${tag}.crt`]);
}
