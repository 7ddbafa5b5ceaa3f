// The public edge end to end: `platform deploy` of examples/fullstack with PLATFORM_EDGE=public
// gets a real ACME certificate for each public host from a real ACME CA (Pebble, real
// validation), before it prints the URLs, and a client "on the internet" uses them. Run alone:
//   source /root/.platform/env.sh && npx tsc -p tsconfig.json && npx vitest run test/integration/public-edge.test.ts
//
// Topology (all made here, all removed at the end; traffic only to 127.0.0.1 and to the veth
// pair this test creates, see helpers/internet.ts and helpers/acme.ts):
//   client netns ── veth /30 in 10.250.0.0/16 ── serverAddress (the server's public address):
//     :18080, :18443  the test's own edge (PLATFORM_EDGE_NAME) publishing 80/443 on 0.0.0.0
//     :14000          Pebble's directory, by IP address: the product's edge container cannot be
//                     given --add-host, so Pebble serves a certificate for IP:<serverAddress>
//                     from a throwaway CA (openssl), which the deploy passes as PLATFORM_ACME_CA_ROOT
//     :53             challtestsrv's DNS: every name answers serverAddress (Pebble's resolver)
//
// The engine's shared edge (platform-edge, 127.0.0.1:443) is never touched: this test's edge has
// its own name, ports and data volume, and its mode is remembered under its own name
// ($PLATFORM_HOME/edges/<name>@local.json, removed at the end).
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertFree, docker, makeDirectoryTls, PLATFORM_HOME, type Pebble, type PebbleTls, startPebble } from "./helpers/acme.js";
import { type CliResult, parseUrls, runCli } from "./helpers/cli.js";
import { forgetProject, freshBackend, requireToolchain, ROOT, unique } from "./helpers/env.js";
import { createInternet, destroyInternet, type Internet, run, runInInternet } from "./helpers/internet.js";

const PORTS = { http: 18080, https: 18443 };
const DOMAIN = "apps.test";
const EDGE_PREFIX = "plt-test-pubedge-";
const EDGE = `${EDGE_PREFIX}${process.pid}-${randomBytes(3).toString("hex")}`;
const project = unique("pe");
const backend = freshBackend();
const work = mkdtempSync(join(tmpdir(), "platform-public-edge-"));
const dir = join(work, "fullstack");
const edgeRecordFile = (name: string) => join(PLATFORM_HOME, "edges", `${name}@local.json`);

/** Edges, their volumes and records of crashed earlier runs (their pid is gone). Never a live run's. */
async function removeStaleEdges(): Promise<void> {
  const dead = (name: string) => {
    const pid = Number(new RegExp(`^${EDGE_PREFIX}(\\d+)-`).exec(name)?.[1]);
    return pid > 0 && pid !== process.pid && !existsSync(`/proc/${pid}`);
  };
  const containers = await docker(["ps", "-a", "--filter", `name=^${EDGE_PREFIX}`, "--format", "{{.Names}}"]);
  for (const name of containers.stdout.split("\n").filter(dead)) await docker(["rm", "-f", "-v", name]);
  const volumes = await docker(["volume", "ls", "-q", "--filter", `name=^${EDGE_PREFIX}`]);
  for (const name of volumes.stdout.split("\n").filter(dead)) await docker(["volume", "rm", "-f", name]);
  const edges = join(PLATFORM_HOME, "edges");
  for (const f of existsSync(edges) ? readdirSync(edges) : []) if (dead(f)) rmSync(join(edges, f), { force: true });
}

type LogLine = Record<string, unknown> & { msg?: string; identifier?: string; ts?: number };

async function edgeLog(): Promise<{ text: string; lines: LogLine[] }> {
  const r = await docker(["logs", EDGE]);
  const text = r.stdout + r.stderr;
  const lines = text
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as LogLine];
      } catch {
        return [];
      }
    });
  return { text, lines };
}

/** The edge's own addresses on its Docker networks. */
async function edgeAddresses(): Promise<string[]> {
  const r = await docker(["inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}", EDGE]);
  return r.stdout.split(" ").filter(Boolean);
}

/**
 * DNS flows (UDP or TCP to port 53) that the kernel's connection tracking lists from these
 * source addresses to anywhere: read from /proc/net/nf_conntrack, passively.
 */
async function dnsFlowsFrom(sources: string[]): Promise<string[]> {
  const table = existsSync("/proc/net/nf_conntrack") ? readFileSync("/proc/net/nf_conntrack", "utf8") : "";
  return table.split("\n").filter((l) => / dport=53 /.test(l) && sources.some((a) => l.includes(` src=${a} `)));
}

describe("public edge: platform deploy obtains ACME certificates (Pebble) and serves the internet", () => {
  let net: Internet | undefined;
  let pebble: Pebble | undefined;
  let tls: PebbleTls;
  let pebbleRoot = "";
  let env: Record<string, string> = {};
  let deployed: CliResult | undefined;
  let deployStarted = false;
  let urls: Record<string, string> = {};
  const cli = (...args: string[]) => runCli(args, { cwd: dir, env });

  /** curl from the client namespace; the URL's name resolves to serverAddress (--resolve), as public DNS would. Nothing else resolves. */
  const client = (url: string, extra: string[] = [], cacert: string | null = pebbleRoot, maxTime = 10) => {
    const u = new URL(url);
    const port = u.port || (u.protocol === "https:" ? "443" : "80");
    const ca = cacert ? ["--cacert", cacert] : [];
    const args = [
      "-sS",
      "--noproxy",
      "*",
      "--max-time",
      String(maxTime),
      // --connect-to as well: curl refuses a --resolve entry for a name that is not a valid host
      // name (the strangers' names below), and must never ask a resolver for one.
      "--resolve",
      `${u.hostname}:${port}:${net!.serverAddress}`,
      "--connect-to",
      `${u.hostname}:${port}:${net!.serverAddress}:${port}`,
      ...ca,
      ...extra,
      url,
    ];
    return runInInternet(net!, "curl", args, (maxTime + 5) * 1000);
  };
  /** A TCP connect from the namespace to serverAddress:port, bounded (3 s): does anything answer there? */
  const reachable = async (port: number) => {
    const r = await runInInternet(net!, "timeout", ["3", "bash", "-c", `exec 3<>/dev/tcp/${net!.serverAddress}/${port}`], 10_000);
    return r.code === 0;
  };
  const hostOf = (service: string) => new URL(urls[service] as string).hostname;
  const needDeploy = () => {
    if (deployed?.code !== 0) throw new Error("the deploy did not succeed (see the first test)");
  };

  beforeAll(async () => {
    requireToolchain();
    await removeStaleEdges();
    net = await createInternet();
    await assertFree("0.0.0.0", PORTS.http, "the test edge's HTTP port");
    await assertFree("0.0.0.0", PORTS.https, "the test edge's HTTPS port");
    tls = await makeDirectoryTls(work, net.serverAddress);
    pebble = await startPebble({ serverAddress: net.serverAddress, httpPort: PORTS.http, tlsPort: PORTS.https, tls, dir: work });
    // Pebble makes a new issuing root at every start: the client trusts this one, and only this one.
    pebbleRoot = join(work, "pebble-root.pem");
    writeFileSync(pebbleRoot, pebble.root);
    // The directory answers by IP address with the throwaway CA (what the edge will check), from the root namespace.
    const dirCheck = await run("curl", ["-sS", "--noproxy", "*", "--max-time", "5", "--cacert", tls.ca, pebble.directoryByAddress], 10_000);
    expect(dirCheck.code, `Pebble's directory by IP: ${dirCheck.stderr}`).toBe(0);
    expect(dirCheck.stdout).toContain("newOrder");

    cpSync(join(ROOT, "examples", "fullstack"), dir, { recursive: true, filter: (s) => !/node_modules|\.next|__pycache__/.test(s) });
    env = {
      ...backend,
      PLATFORM_EDGE: "public",
      PLATFORM_EDGE_NAME: EDGE,
      PLATFORM_APPS_DOMAIN: DOMAIN,
      PLATFORM_HTTP_PORT: String(PORTS.http),
      PLATFORM_HTTPS_PORT: String(PORTS.https),
      PLATFORM_ACME_CA: pebble.directoryByAddress,
      PLATFORM_ACME_CA_ROOT: tls.ca,
      PLATFORM_ACME_EMAIL: `ops@${DOMAIN}`,
      // The deploy checks each host's DNS before it waits for a certificate: it asks challtestsrv
      // (this sandbox's public DNS), never the machine's resolver. The addresses it compares with
      // are the machine's interfaces, serverAddress among them (PLATFORM_PUBLIC_ADDRESS unset).
      PLATFORM_DNS_SERVERS: `${net.serverAddress}:${pebble.ports.dns}`,
    };
  }, 120_000);

  afterAll(async () => {
    if (deployStarted) {
      const d = await cli("destroy", "--yes", "--delete-data", "--project", project);
      if (d.code !== 0) console.warn(`[public-edge] destroy failed (exit ${d.code}):\n${d.stdout}\n${d.stderr}`);
    }
    await docker(["rm", "-f", "-v", EDGE, `${EDGE}-next`]);
    await docker(["volume", "rm", "-f", `${EDGE}-data`]);
    rmSync(edgeRecordFile(EDGE), { force: true });
    pebble?.stop();
    if (net) await destroyInternet(net);
    rmSync(work, { recursive: true, force: true });
    rmSync(new URL(backend.PLATFORM_BACKEND_URL as string).pathname, { recursive: true, force: true });
    forgetProject(project);
  }, 300_000);

  it("deploys with the public edge and has each host's certificate before it prints the URLs", async () => {
    deployStarted = true;
    deployed = await cli("deploy", "--yes", "--project", project);
    const r = deployed;
    if (r.code !== 0) {
      const log = await edgeLog().catch(() => ({ text: "(no edge)" }));
      throw new Error(
        `deploy exit ${r.code}\n${r.stdout}\n${r.stderr}\nedge:\n${log.text.slice(-6000)}\nPebble:\n${pebble?.log().slice(-4000)}`,
      );
    }
    urls = parseUrls(r.stdout);
    expect(r.stdout).toMatch(/^Deployment complete \(dep_[a-z0-9]+\)$/m);
    expect(r.stdout, "a host without a certificate").not.toMatch(/^⚠ .*no certificate/m);
    const host = (s: string) => new RegExp(`^https://${project}-${s}-[a-z]+-[a-z]+\\.apps\\.test:${PORTS.https}$`);
    expect(urls.api).toMatch(host("api"));
    expect(urls.web).toMatch(host("web"));
    expect(urls.database).toBeUndefined();

    // The edge is this test's own: public mode, 80 and 443 published on every interface, nothing else.
    const inspect = await docker([
      "inspect",
      "-f",
      '{{json .HostConfig.PortBindings}} {{index .Config.Labels "platform.edge-mode"}}',
      EDGE,
    ]);
    expect(inspect.code, inspect.stderr).toBe(0);
    const [bindings, mode] = inspect.stdout.trim().split(" ");
    expect(mode).toBe("public");
    expect(JSON.parse(bindings as string)).toEqual({
      "80/tcp": [{ HostIp: "", HostPort: String(PORTS.http) }],
      "443/tcp": [{ HostIp: "", HostPort: String(PORTS.https) }],
    });
    // The mode is remembered under this edge's name, not the shared edge's.
    expect(JSON.parse(readFileSync(edgeRecordFile(EDGE), "utf8"))).toMatchObject({
      mode: "public",
      appsDomain: DOMAIN,
      httpsPort: PORTS.https,
    });

    // Real validation: Pebble's VA fetched each host's challenge from serverAddress (the published ports).
    const { lines } = await edgeLog();
    const issuance: string[] = [];
    for (const s of ["api", "web"]) {
      const h = hostOf(s);
      // Pebble's VA validated the host (it dialled serverAddress on the published port the
      // challenge needs), and the edge served that challenge's answer: HTTP-01 on 18080 or
      // TLS-ALPN-01 on 18443, whichever Caddy chose (both are offered, both published).
      expect(pebble?.log(), `Pebble validated ${h}`).toContain(`Value:"${h}"}`);
      // HTTP-01's log line names the host as identifier, TLS-ALPN-01's as server_name
      const served = lines.find((l) => (l.identifier === h || l.server_name === h) && /^served key authentication/.test(String(l.msg)));
      const about = lines.filter((l) => JSON.stringify(l).includes(h)).map((l) => JSON.stringify(l));
      expect(String(served?.challenge), `the edge served ${h}'s challenge:\n${about.join("\n")}`).toMatch(/^(http-01|tls-alpn-01)$/);
      const at = (msg: string) => lines.find((l) => l.msg === msg && l.identifier === h)?.ts;
      const [from, to] = [at("obtaining certificate"), at("certificate obtained successfully")];
      expect(from !== undefined && to !== undefined, `the edge logged ${h}'s issuance`).toBe(true);
      issuance.push(`${s} ${((to! - from!) * 1000).toFixed(0)} ms (${String(served?.challenge)} from ${String(served?.remote)})`);
    }
    expect(pebble?.log().match(/set VALID by completed challenge/g)?.length).toBeGreaterThanOrEqual(2);
    // printed on every run: the measurement is part of what this test is for
    console.log(
      `[public-edge] deploy ${r.seconds.toFixed(1)} s; issuance (edge's log): ${issuance.join(", ")}; serverAddress ${net?.serverAddress}`,
    );
  }, 900_000);

  it("both URLs answer 200 over HTTPS from the internet, over HTTP/2, with HSTS", async () => {
    needDeploy();
    for (const url of [`${urls.web}/`, `${urls.api}/health`]) {
      const r = await client(url, ["-D", "-", "-o", "/dev/null", "-w", "%{http_code} %{http_version}\n"]);
      expect(r.code, `${url}: ${r.stderr}`).toBe(0);
      expect(r.stdout, url).toMatch(/^200 2$/m);
      expect(r.stdout, url).toMatch(/^strict-transport-security: max-age=31536000/im);
    }
    const h2 = await client(`${urls.api}/health`, ["--http2", "-o", "/dev/null", "-w", "%{http_version}"]);
    expect(h2.code, h2.stderr).toBe(0);
    expect(h2.stdout).toBe("2");
  });

  it("the certificates verify against Pebble's root only: not the system CAs, not the directory's own CA", async () => {
    needDeploy();
    for (const url of [`${urls.web}/`, `${urls.api}/health`]) {
      const pebbleOnly = await client(url, ["-o", "/dev/null", "-w", "%{http_code}"]);
      expect(pebbleOnly.stdout, pebbleOnly.stderr).toBe("200");
      const system = await client(url, ["-o", "/dev/null"], null);
      expect(system.code, "the system CAs must not verify a Pebble certificate").toBe(60);
      const directoryCa = await client(url, ["-o", "/dev/null"], tls.ca);
      expect(directoryCa.code, "the directory's TLS CA must not verify the served certificate").toBe(60);
    }
  });

  const redirectOf = async (s: string) => {
    const r = await client(`http://${hostOf(s)}:${PORTS.http}/x?y=1`, ["-D", "-", "-o", "/dev/null"], null);
    expect(r.code, r.stderr).toBe(0);
    return { head: r.stdout, location: /^location: (\S+)/im.exec(r.stdout)?.[1] ?? "" };
  };

  it("redirects plain HTTP to HTTPS with 308, keeping host, path and query", async () => {
    needDeploy();
    for (const s of ["web", "api"]) {
      const { head, location } = await redirectOf(s);
      expect(head).toMatch(/^HTTP\/1\.1 308/);
      expect(head, "no HSTS over plain HTTP").not.toMatch(/^strict-transport-security:/im);
      const u = new URL(location);
      expect(`${u.protocol}//${u.hostname}${u.pathname}${u.search}`).toBe(`https://${hostOf(s)}/x?y=1`);
    }
  });

  // The redirect must lead where the deploy says the service is: the printed URL, which carries
  // the HTTPS port when it is not 443. Fails on the product as of 2026-11-26: the public
  // Caddyfile's `redir https://{host}{uri} 308` drops the port ({host} has none), so a visitor of
  // http://<host>:18080/ is sent to https://<host>/ (443), where this server has no public edge.
  // Passes with the fix in the report (the Caddyfile given the HTTPS port).
  it("the redirect goes to the printed URL's HTTPS port, and a client that follows it arrives", async () => {
    needDeploy();
    for (const s of ["web", "api"]) expect((await redirectOf(s)).location, `${s}'s redirect`).toBe(`${urls[s]}/x?y=1`);
    // 443 maps to serverAddress too: curl never looks a name up.
    const h = hostOf("web");
    const addr = net!.serverAddress;
    const maps = [PORTS.https, 443].flatMap((p) => ["--connect-to", `${h}:${p}:${addr}:${p}`]);
    const follow = await client(`http://${h}:${PORTS.http}/`, [
      "-L",
      "--max-redirs",
      "1",
      ...maps,
      "-o",
      "/dev/null",
      "-w",
      "%{http_code} %{url_effective}",
    ]);
    expect(follow.stdout, follow.stderr).toBe(`200 ${urls.web}/`);
  });

  // The guard answers from the allow-list of hosts the provider keeps in the edge's volume
  // (src/provider/docker/edge-allow.ts) and looks up no name: an earlier guard dialled the name's
  // alias, and Docker's embedded DNS forwarded strangers' names to the machine's resolver (seen
  // here as UDP flows from the edge for evil.apps.test). The conntrack check below keeps it so.
  // Caddy logs a refused ask at debug level only, so the proof is what did not happen: no order,
  // no "obtaining certificate", no DNS flow.
  it("a stranger's name gets no certificate, and Pebble sees no order for it (the on-demand guard)", async () => {
    needDeploy();
    const names = [`evil.${DOMAIN}`, "not-ours.example"];
    const sources = await edgeAddresses();
    expect(sources.length).toBeGreaterThan(0);
    const flowsBefore = new Set(await dnsFlowsFrom(sources));
    const before = pebble!.log().length;
    const ordersBefore = (pebble!.log().match(/Added order/g) ?? []).length;
    for (const name of names) {
      // -k: the handshake itself must fail, not the certificate's verification
      const r = await client(`https://${name}:${PORTS.https}/`, ["-k", "-o", "/dev/null"], null, 20);
      expect(r.code, `${name}: the handshake must fail (${r.stderr.trim()})`).toBe(35);
    }
    const after = pebble!.log().slice(before);
    expect(after).not.toMatch(/evil\.apps\.test|not-ours\.example/);
    expect(after).not.toMatch(/order-plz|Added order/);
    expect((pebble!.log().match(/Added order/g) ?? []).length).toBe(ordersBefore);
    const { lines } = await edgeLog();
    const mentions = lines.filter((l) => /evil|not-ours/.test(JSON.stringify(l)));
    const obtaining = mentions.filter((l) => l.msg === "obtaining certificate");
    expect(obtaining, "the edge tried to obtain a certificate for a stranger's name").toEqual([]);
    // No DNS lookup left the machine from the edge (conntrack keeps a UDP flow 30 s).
    const leaked = (await dnsFlowsFrom(sources)).filter((f) => !flowsBefore.has(f));
    expect(leaked, "the edge sent DNS lookups outside the sandbox").toEqual([]);
  }, 60_000);

  it("publishes nothing else: from the internet only the edge's two ports answer", async () => {
    needDeploy();
    // The probe works: the edge's ports answer it.
    expect(await reachable(PORTS.https)).toBe(true);
    expect(await reachable(PORTS.http)).toBe(true);
    // The telemetry receiver (OTLP 4318, never published), Studio (4680, 127.0.0.1 only), Caddy's
    // admin/ask port (2019, loopback inside the edge), the services' 8080, the API's own 8000,
    // PostgreSQL, and 443 (the shared edge, 127.0.0.1 only).
    for (const port of [4318, 4680, 2019, 8080, 8000, 3000, 5432, 443, 80]) {
      expect(await reachable(port), `serverAddress:${port} answers from the internet`).toBe(false);
    }
    // No container of the project, nor the receiver, publishes a port on the host.
    const ids = (await docker(["ps", "-q", "--filter", `label=platform.project=${project}`])).stdout.split("\n").filter(Boolean);
    expect(ids.length).toBeGreaterThanOrEqual(3);
    for (const id of [...ids, "platform-telemetry"]) {
      const p = await docker(["inspect", "-f", "{{json .HostConfig.PortBindings}}", id]);
      if (p.code !== 0 && id === "platform-telemetry") continue; // no receiver on this engine
      const published = Object.values((JSON.parse(p.stdout) ?? {}) as Record<string, { HostPort: string }[] | null>).flatMap(
        (b) => b ?? [],
      );
      expect(published, `${id} publishes a port`).toEqual([]);
    }
  });
});
