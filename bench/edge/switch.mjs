// The edge's hand-over (issue 24): a new edge starts beside the old one on the same port (host
// network, SO_REUSEPORT), the old one is stopped once the new one serves, under a load heavier
// than the public-edge test's. Each case counts the requests that failed in the switch.
//   h1: CLIENTS HTTP/1.1 clients, each on one kept TLS connection (Node's Agent, keepAlive).
//   h2: CLIENTS/6 HTTP/2 sessions, 4 concurrent streams each; a session that reads a GOAWAY is
//       replaced, and a request whose HEADERS frame never left the client is sent again (as
//       browsers do); every other refused or reset stream fails.
//   hs: CLIENTS clients, each opening a new connection for a TLS handshake only, again and
//       again: the accept queues' turn-over, where a socket closed with connections queued
//       resets them. BENCH_SWITCH_PROTOCOLS picks (default h1,h2,hs).
// Cases: local -> public and public -> local, with the binds the product uses (local:
// 127.0.0.1; public: 127.0.0.1 and every interface), and "public, wildcard only" (the bind
// before 2026-11-26) for contrast. BENCH_SWITCH_IMAGES="a,b" compares Caddy images (e.g. one
// built without scripts/setup/go/caddy's patch); default: the set-up's edge image.
// Usage: npm run build && node bench/edge/switch.mjs [RUNS] [CLIENTS]
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort, sh } from "./upstream.mjs";

const ROOT = resolve(import.meta.dirname, "..", "..");
const RUNS = Number(process.argv[2] ?? 3);
const CLIENTS = Number(process.argv[3] ?? 60);
const home = process.env.PLATFORM_HOME || join(process.env.HOME, ".platform");
const images = (process.env.BENCH_SWITCH_IMAGES || JSON.parse(readFileSync(join(home, "images.json"), "utf8")).caddy).split(",");
const { SHUTDOWN_DELAY, EDGE_PROTOCOLS } = await import(join(ROOT, "dist/provider/docker/edge-config.js"));
const { PUBLIC_BIND } = await import(join(ROOT, "dist/provider/docker/edge-public-config.js"));
const BINDS = { local: "127.0.0.1", public: PUBLIC_BIND, "public, wildcard only": '""' };
const CASES = [
  ["local", "public"],
  ["public", "local"],
  ["local", "public, wildcard only"],
];
const PROTOCOLS = (process.env.BENCH_SWITCH_PROTOCOLS || "h1,h2,hs").split(",");
const port = await freePort();
const dir = mkdtempSync(join(tmpdir(), "platform-bench-switch-"));
const tag = `platform-bench-switch-${process.pid}`;

// The product's hand-over settings (edge-config.ts) on a site that answers by itself: its
// certificate on demand, as the product's (a new edge takes new connections from its bind on).
const caddyfile = (bind, name) => `{
\tadmin off
\tauto_https disable_redirects
\tlocal_certs
\tskip_install_trust
\tshutdown_delay ${SHUTDOWN_DELAY}
\tdefault_bind ${bind}
\tservers {
\t\t${EDGE_PROTOCOLS}
\t}
}
https://localhost:${port} {
\ttls internal {
\t\ton_demand
\t}
\t@stopping {
\t\tvars {http.shutting_down} true
\t\tnot protocol http/2+
\t}
\theader @stopping {
\t\tConnection close
\t\tdefer
\t}
\trespond "${name}"
}
`;

function startCaddy(image, name, bind) {
  const file = join(dir, `${name}.Caddyfile`);
  writeFileSync(file, caddyfile(bind, name));
  sh("docker", [
    "run",
    "-d",
    "--name",
    `${tag}-${name}`,
    "--network",
    "host",
    "-v",
    `${file}:/etc/caddy/Caddyfile:ro`,
    "--entrypoint",
    "caddy",
    image,
    "run",
    "--adapter",
    "caddyfile",
    "--config",
    "/etc/caddy/Caddyfile",
  ]);
}
async function serving(name) {
  for (const t0 = Date.now(); Date.now() - t0 < 30_000; await new Promise((r) => setTimeout(r, 50))) {
    const out = spawn("docker", ["logs", `${tag}-${name}`]);
    let text = "";
    out.stderr.on("data", (d) => (text += d));
    out.stdout.on("data", (d) => (text += d));
    await new Promise((r) => out.on("close", r));
    if (text.includes("serving initial configuration")) return;
  }
  throw new Error(`${name} did not serve within 30 s`);
}
const remove = () => sh("sh", ["-c", `docker rm -f ${tag}-old ${tag}-new >/dev/null 2>&1 || true`]);
// Whatever ends this process (an error, an unsettled await, Ctrl-C), its edges do not outlive it:
// one left in the host's network on 127.0.0.1:443 takes a share of the engine's edge's connections.
process.on("exit", remove);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));

/** One switch: the load runs in its own process (switch-load.mjs) for 7 s; returns its report. */
async function once(image, from, to, protocol) {
  remove();
  startCaddy(image, "old", BINDS[from]);
  await serving("old");
  const load = spawn(process.execPath, [join(import.meta.dirname, "switch-load.mjs"), protocol, String(port), String(CLIENTS), "7000"]);
  let out = "";
  load.stdout.on("data", (d) => (out += d));
  await new Promise((r) => setTimeout(r, 2000));
  startCaddy(image, "new", BINDS[to]);
  await serving("new");
  sh("docker", ["stop", "-t", "10", `${tag}-old`]);
  await new Promise((r) => load.on("close", r));
  remove();
  return JSON.parse(out);
}

try {
  console.log(
    `edge hand-over, ${RUNS} runs per case, ${CLIENTS} clients, port ${port}, load ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`,
  );
  for (const image of images)
    for (const [from, to] of CASES)
      for (const protocol of PROTOCOLS) {
        const runs = [];
        for (let i = 0; i < RUNS; i++) runs.push(await once(image, from, to, protocol));
        const failed = runs.map((r) => r.failed).join(", ");
        const sample = runs.flatMap((r) => r.samples)[0] ?? "";
        console.log(
          `${image} ${from} -> ${to} ${protocol}: failed per switch ${failed} (of ${runs.map((r) => r.ok + r.failed).join(", ")} requests; resent unsent: ${runs.map((r) => r.resent).join(", ")}) ${sample}`,
        );
      }
} finally {
  remove();
  rmSync(dir, { recursive: true, force: true });
}
