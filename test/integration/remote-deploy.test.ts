// Deploying to a server: `platform deploy` from this machine (the laptop) to a Docker engine on
// "a server on the internet" reached over SSH (DOCKER_HOST=ssh://root@<address>), with the
// public edge and real ACME certificates. Run alone:
//   source /root/.platform/env.sh && npx tsc -p tsconfig.json && npx vitest run test/integration/remote-deploy.test.ts
//
// Topology (all made here, all removed at the end; see helpers/internet.ts, remote-engine.ts, acme.ts):
//   root namespace (the laptop: the CLI, its state, Pebble) ── veth /30 in 10.250.0.0/16 ── server namespace
//     serverAddress (.1)  Pebble's directory :14000 and challtestsrv's DNS :53: "the internet's" CA and DNS
//     clientAddress (.2)  the server: its own dockerd and OpenSSH's sshd (host key checked, key login);
//                         its edge publishes 80 and 443 there. Every name resolves here (challtestsrv).
// The laptop's engine is never used for the stack: its images are built on the server (BuildKit
// there), and only the base images the set-up built here travel, once (docker save | load).
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeDirectoryTls, type Pebble, startPebble } from "./helpers/acme.js";
import { type CliResult, httpsRequest, ok, parseUrls, runCli, startPoller } from "./helpers/cli.js";
import { POLL_ROUTE } from "./helpers/events.js";
import { CLI, copyExample, forgetProject, freshBackend, requireToolchain, unique } from "./helpers/env.js";
import { expectFullstackPhases } from "./helpers/fullstack-order.js";
import { createInternet, destroyInternet, type Internet, run } from "./helpers/internet.js";
import { cleanStaleRemoteEngines, type RemoteEngine, startRemoteEngine } from "./helpers/remote-engine.js";
import { rawGet, startTestStudio } from "./helpers/studio-browser.js";

const DOMAIN = "apps.test";
const project = unique("rd");
const backend = freshBackend();
const work = mkdtempSync(join(tmpdir(), "platform-remote-"));
const dir = join(work, "fullstack");

describe("deploying to a server over SSH (DOCKER_HOST=ssh://), public edge with ACME", () => {
  let net: Internet | undefined;
  let server: RemoteEngine | undefined;
  let pebble: Pebble | undefined;
  /** Pebble's issuing root (PEM): the only CA the test's client trusts. */
  let pebbleRootPem = "";
  let env: Record<string, string> = {};
  let urls: Record<string, string> = {};
  let deployed: CliResult | undefined;
  const cli = (...args: string[]) => runCli([...args, "--project", project], { cwd: dir, env });
  /** The server's engine, looked at directly (the test's view, not the product's). */
  const onServer = (...args: string[]) =>
    execFileSync("docker", ["-H", server!.dockerHost, ...args])
      .toString()
      .trim();
  const here = (...args: string[]) => execFileSync("docker", args).toString().trim();
  const get = (url: string, o: { method?: string; body?: unknown } = {}) =>
    httpsRequest(url, pebbleRootPem, { ...o, address: server!.address });
  const apiStatus = async () => JSON.parse((await get(`${urls.api}/api/status`)).body) as { event_count: number; version?: string };
  const needDeploy = () => {
    if (deployed?.code !== 0) throw new Error("the first deploy did not succeed (see the first test)");
  };

  beforeAll(async () => {
    requireToolchain();
    await cleanStaleRemoteEngines();
    net = await createInternet();
    server = await startRemoteEngine(net, { egress: true });
    const tls = await makeDirectoryTls(work, net.serverAddress);
    // Pebble validates at the server's own 80 and 443; every name's A record is the server.
    pebble = await startPebble({ serverAddress: net.serverAddress, answer: server.address, httpPort: 80, tlsPort: 443, tls, dir: work });
    pebbleRootPem = pebble.root;
    copyExample("fullstack", dir);
    env = {
      ...backend,
      DOCKER_HOST: server.sshUrl,
      PLATFORM_SSH_CONFIG: server.sshConfig,
      PLATFORM_EDGE: "public",
      PLATFORM_APPS_DOMAIN: DOMAIN,
      PLATFORM_ACME_CA: pebble.directoryByAddress,
      PLATFORM_ACME_CA_ROOT: tls.ca,
      PLATFORM_ACME_EMAIL: `ops@${DOMAIN}`,
      // "The internet's" DNS; the server's address comes from DOCKER_HOST.
      PLATFORM_DNS_SERVERS: `${net.serverAddress}:${pebble.ports.dns}`,
    };
  }, 300_000);

  afterAll(async () => {
    if (deployed) {
      const d = await cli("destroy", "--yes", "--delete-data");
      if (d.code !== 0) console.warn(`[remote-deploy] destroy failed (exit ${d.code}):\n${d.stdout}\n${d.stderr}`);
    }
    pebble?.stop();
    await server?.stop();
    if (net) await destroyInternet(net);
    rmSync(work, { recursive: true, force: true });
    rmSync(new URL(backend.PLATFORM_BACKEND_URL as string).pathname, { recursive: true, force: true });
    forgetProject(project);
  }, 300_000);

  it("deploys examples/fullstack to the server in dependency order, certificates before the URLs", async () => {
    deployed = await cli("deploy", "--yes");
    const r = deployed;
    if (r.code !== 0) throw new Error(`deploy exit ${r.code}\n${r.stdout}\n${r.stderr}\n${server!.logs().slice(-3000)}`);
    console.log(`[remote-deploy] first deploy over SSH: ${r.seconds.toFixed(1)} s (base images copied, builds on the server)`);
    expectFullstackPhases(r.stdout);
    expect(r.stdout.match(/^⚠.*$/gm), "no warnings").toBeNull();
    urls = parseUrls(r.stdout);
    const host = (s: string) => new RegExp(`^https://${project}-${s}-[a-z]+-[a-z]+\\.apps\\.test$`);
    expect(urls.api).toMatch(host("api"));
    expect(urls.web).toMatch(host("web"));
    // Built on the server: the stack's images are there, and not here.
    expect(onServer("images", "--format", "{{.Repository}}", "--filter", `reference=platform/${project}_*`)).toContain(
      `platform/${project}_api`,
    );
    expect(here("images", "-q", "--filter", `reference=platform/${project}_*`)).toBe("");
    expect(here("ps", "-aq", "--filter", `label=platform.project=${project}`)).toBe("");
    // The edge on the server listens on 80 and 443 of every interface (in the host's network), and
    // nothing is published there but its resolver's DNS on a loopback address.
    expect(onServer("inspect", "-f", '{{.HostConfig.NetworkMode}} {{index .Config.Labels "platform.edge-listens"}}', "platform-edge")).toBe(
      "host *:80,*:443",
    );
    // (`docker ps` lists exposed ports too: only "host->container" ones are published.)
    const published = onServer("ps", "--format", "{{.Names}} {{.Ports}}")
      .split("\n")
      .flatMap((l) => {
        const [name, ...ports] = l.split(" ");
        return ports
          .join(" ")
          .split(", ")
          .filter((p) => p.includes("->"))
          .map((p) => `${name} ${p}`);
      });
    expect(published.sort()).toEqual(["platform-edge-dns 127.0.83.1:53->53/tcp", "platform-edge-dns 127.0.83.1:53->53/udp"]);
  }, 900_000);

  it("serves both URLs with Pebble's certificates to a client that trusts only Pebble", async () => {
    needDeploy();
    for (const url of [urls.api, urls.web]) {
      const r = await get(url === urls.api ? `${url}/api/status` : url!);
      expect(r.status, url).toBe(200);
      expect(r.authorized).toBe(true);
    }
    const plain = await run("curl", [
      "-sS",
      "--noproxy",
      "*",
      "-o",
      "/dev/null",
      "-w",
      "%{http_code}",
      "--resolve",
      `${new URL(urls.api!).hostname}:80:${server!.address}`,
      `http://${new URL(urls.api!).hostname}/`,
    ]);
    expect(plain.stdout).toBe("308");
  });

  it("POST /api/events raises event_count", async () => {
    needDeploy();
    const before = (await apiStatus()).event_count;
    expect((await get(`${urls.api}/api/events`, { method: "POST", body: { message: "hello from the laptop" } })).status).toBeLessThan(300);
    expect((await apiStatus()).event_count).toBe(before + 1);
  });

  it("status, logs and the certificates' expiry, read over SSH", async () => {
    needDeploy();
    const s = JSON.parse(ok(await cli("status", "--json")).stdout) as {
      services: { service: string; state: string }[];
      edge: { mode: string } | null;
      certificates: { host: string; cert?: { expires: string } }[];
    };
    expect(s.services.map((x) => `${x.service}:${x.state}`).sort()).toEqual(["api:running", "database:running", "web:running"]);
    expect(s.edge?.mode).toBe("public");
    expect(s.certificates.map((c) => c.host).sort()).toEqual([new URL(urls.api!).hostname, new URL(urls.web!).hostname].sort());
    expect(s.certificates.every((c) => Date.parse(c.cert?.expires ?? "") > Date.now())).toBe(true);
    const logs = ok(await cli("logs", "api", "--tail", "50"));
    expect(logs.stdout + logs.stderr).toMatch(/Uvicorn running|Application startup complete/);
  });

  it("redeploys with no change: nothing replaced", async () => {
    needDeploy();
    const r = ok(await cli("deploy", "--yes"));
    console.log(`[remote-deploy] no-op redeploy over SSH: ${r.seconds.toFixed(1)} s`);
    for (const s of ["database", "api", "web"]) expect(r.stdout).toContain(`${s}: unchanged`);
  }, 600_000);

  it("a change is built on the server and rolled out with no failed request; rollback brings the old one back", async () => {
    needDeploy();
    const image = async () =>
      JSON.parse(ok(await cli("status", "--json")).stdout).services.find((x: { service: string }) => x.service === "api").image as string;
    const before = await image();
    writeFileSync(join(dir, "api", "app", "version.txt"), "v2\n");
    const poll = startPoller(`${urls.api}${POLL_ROUTE}`, pebbleRootPem, 100, server!.address);
    ok(await cli("deploy", "--yes"));
    expect(await image()).not.toBe(before);
    const r = ok(await cli("rollback"));
    const stats = await poll.stop();
    expect(r.stdout).toMatch(/note: rolling back to dep_\w+/);
    expect(await image()).toBe(before);
    expect(stats.failures).toEqual([]);
    expect(stats.sent).toBeGreaterThan(10);
    console.log(`[remote-deploy] change + rollback under load: ${stats.sent} requests, ${stats.failed} failed`);
  }, 900_000);

  it("db connect --tunnel-only reaches the server's database through SSH", async () => {
    needDeploy();
    const child = spawn(process.execPath, [CLI, "db", "connect", "database", "--tunnel-only", "--json", "--project", project], {
      cwd: dir,
      env: { ...process.env, ...env, CI: "true" },
    });
    try {
      const [line] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
      const t = JSON.parse(line) as { host: string; port: number; user: string; database: string; password?: string };
      expect(t.host).toBe("127.0.0.1");
      const password = onServer(
        "exec",
        onServer("ps", "-q", "--filter", `label=platform.project=${project}`, "--filter", "label=platform.service=database"),
        "printenv",
        "POSTGRES_PASSWORD",
      );
      const out = execFileSync(
        "psql",
        ["-h", t.host, "-p", String(t.port), "-U", t.user, "-tAc", "SELECT count(*) FROM events", t.database],
        {
          env: { ...process.env, PGPASSWORD: password },
        },
      )
        .toString()
        .trim();
      expect(Number(out)).toBeGreaterThan(0);
    } finally {
      child.kill("SIGINT");
      await once(child, "close");
    }
  }, 120_000);

  it("Studio shows the server's services and their per-route metrics", async () => {
    needDeploy();
    for (let i = 0; i < 5; i++) await get(`${urls.api}/api/status`);
    const studio = await startTestStudio({ ...env });
    try {
      const signIn = await studio.signIn();
      const auth = await fetch(signIn, { redirect: "manual" });
      const cookie = (auth.headers.get("set-cookie") ?? "").split(";")[0]!;
      const api = async <T>(path: string) => JSON.parse((await rawGet(`${studio.url}${path}`, { cookie })).body) as T;
      const view = await api<{ services: { name: string; health: string }[] }>(`/api/projects/${project}/envs/preview`);
      expect(view.services.map((s) => `${s.name}:${s.health}`).sort()).toEqual(["api:healthy", "database:healthy", "web:healthy"]);
      // The store is on the server; Studio reads a copy it refreshes every few seconds.
      let count = 0;
      for (const deadline = Date.now() + 60_000; Date.now() < deadline && count < 5; await new Promise((r) => setTimeout(r, 2000))) {
        const m = await api<{ routes: { service: string; route: string; count: number }[] }>(
          `/api/projects/${project}/envs/preview/metrics/routes`,
        );
        count = m.routes.filter((r) => r.service === "api" && r.route === "/api/status").reduce((n, r) => n + r.count, 0);
      }
      expect(count).toBeGreaterThanOrEqual(5);
    } finally {
      await studio.stop();
    }
  }, 180_000);

  it("a server without Docker, or an unknown host key, is a clear error and nothing is deployed", async () => {
    const badConfig = join(work, "bad-ssh-config");
    writeFileSync(
      badConfig,
      readFileSync(server!.sshConfig, "utf8").replace(/UserKnownHostsFile .*/g, `UserKnownHostsFile ${join(work, "empty-known-hosts")}`),
    );
    writeFileSync(join(work, "empty-known-hosts"), "");
    const r = await runCli(["status", "--project", project], { cwd: dir, env: { ...env, PLATFORM_SSH_CONFIG: badConfig } });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/cannot reach the engine's server over SSH/);
    expect(r.stderr).toMatch(/Host key verification failed|host key/i);
  }, 60_000);
});
