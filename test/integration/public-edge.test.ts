// The public edge end to end: `platform deploy` of examples/fullstack with PLATFORM_EDGE=public
// gets a real ACME certificate for each public host from a real ACME CA (Pebble, real
// validation), before it prints the URLs, and a client "on the internet" uses them. Run alone:
//   source /root/.platform/env.sh && npx tsc -p tsconfig.json && npx vitest run test/integration/public-edge.test.ts
//
// Topology (all made here, all removed at the end; traffic only to 127.0.0.1 and to the veth
// pair this test creates, see helpers/internet.ts and helpers/acme.ts):
//   client netns ── veth /30 in 10.250.0.0/16 ── serverAddress (the server's public address):
//     :<http>, :<https> (free ports) the test's own edge (PLATFORM_EDGE_NAME) publishing 80/443 on 0.0.0.0
//     :14000          Pebble's directory, by IP address: the product's edge container cannot be
//                     given --add-host, so Pebble serves a certificate for IP:<serverAddress>
//                     from a throwaway CA (openssl), which the deploy passes as PLATFORM_ACME_CA_ROOT
//     :53             challtestsrv's DNS: every name answers serverAddress (Pebble's resolver)
//
// Custom domains: the deployed copy of examples/fullstack gives its web service
// `domains: [shop.<zone>, elsewhere.<zone>]`. shop's DNS (challtestsrv's default answer) points
// here; elsewhere's A record is the client's own address (the other end of the /30), so the
// deploy reports it with the record to create and does not wait for it, and `platform domains`
// says so too. A second stack that claims shop is refused at its container's creation.
//
// Under load (helpers/load.ts, HTTP/1.1 and HTTP/2 to 127.0.0.1:<https>, bounded in requests and
// time): 3 redeploys that replace web and api fail no request; a switch of the edge to local
// mode and back (the new edge started beside the old one on the same port, in the host's
// network) fails no request for want of a listener, with a handshake probe beside the load, and
// ends with Pebble's certificates served again.
//
// The engine's shared edge (platform-edge, 127.0.0.1:443) is never touched: this test's edge has
// its own name, ports and data volume, and its mode is remembered under its own name
// ($PLATFORM_HOME/edges/<name>@local.json, removed at the end).
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as tlsConnect } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { assertFree, docker, makeDirectoryTls, PLATFORM_HOME, type Pebble, type PebbleTls, sleep, startPebble } from "./helpers/acme.js";
import { type CliResult, httpsRequest, parseUrls, runCli } from "./helpers/cli.js";
import { copyExample, forgetProject, freePort, freshBackend, removeEdge, requireToolchain, unique } from "./helpers/env.js";
import { createInternet, destroyInternet, type Internet, run, runInInternet } from "./helpers/internet.js";
import {
  describeLoad,
  eventCount,
  eventPost,
  eventsPosted,
  type LoadFailure,
  type LoadResult,
  PROTOCOLS,
  type Protocol,
  quantile,
  LIGHT_LOAD,
  startLoad,
  unexplainedResends,
} from "./helpers/load.js";

// Free ports (env.ts freePort): npm test runs files side by side, and public-edge-acme publishes its edge too.
const PORTS = { http: await freePort(), https: await freePort() };
const DOMAIN = "apps.test";
const EDGE_PREFIX = "plt-test-pubedge-";
const RUN_ID = `${process.pid}-${randomBytes(3).toString("hex")}`;
const EDGE = `${EDGE_PREFIX}${RUN_ID}`;
/** web's custom domains: the first is its printed URL. shop points here, elsewhere does not. */
const ZONE = `pe-${RUN_ID}.test`;
const SHOP = `shop.${ZONE}`;
const ELSEWHERE = `elsewhere.${ZONE}`;
const project = unique("pe");
/** A second stack, only a web service, that claims shop as well. */
const project2 = unique("pe2x");
const backend = freshBackend();
const work = mkdtempSync(join(tmpdir(), "platform-public-edge-"));
const dir = join(work, "fullstack");
const dir2 = join(work, "second");
/** Think time of each load loop: spreads the request budget (3,000) over the redeploys and the mode switches. */
const ZD_PAUSE_MS = 250;
const SWITCH_PAUSE_MS = 150;
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

interface Probe {
  sentAt: number;
  at: number;
  ok: boolean;
  /** The error, or the served certificate's issuer. */
  what: string;
}

/**
 * A TCP and TLS handshake with the edge at 127.0.0.1:<port> (SNI `host`, any certificate: only
 * whether the edge answers counts), every `everyMs`, each given `timeoutMs`; no HTTP request.
 * Bounded: at most `maxProbes`, and it stops when stopped. It times a gap more finely than the
 * load does (a client that waits in a SYN retransmission is slow there, not failed).
 */
function startHandshakeProbe(port: number, host: string, o = { everyMs: 20, timeoutMs: 500, maxProbes: 5_000 }) {
  const probes: Probe[] = [];
  let running = true;
  const once = () =>
    new Promise<Pick<Probe, "ok" | "what">>((resolve) => {
      const socket = tlsConnect({ host: "127.0.0.1", port, servername: host, rejectUnauthorized: false });
      const done = (r: Pick<Probe, "ok" | "what">) => {
        clearTimeout(timer);
        socket.destroy();
        resolve(r);
      };
      const timer = setTimeout(() => done({ ok: false, what: `no handshake within ${o.timeoutMs} ms` }), o.timeoutMs);
      socket.once("secureConnect", () => done({ ok: true, what: String(socket.getPeerCertificate().issuer?.CN ?? "") }));
      socket.once("error", (e: NodeJS.ErrnoException) => done({ ok: false, what: e.code ?? e.message }));
    });
  const loop = (async () => {
    while (running && probes.length < o.maxProbes) {
      const sentAt = performance.now();
      const r = await once();
      probes.push({ sentAt, at: performance.now(), ...r });
      await sleep(o.everyMs);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return probes;
    },
  };
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

/**
 * Where the edge's name lookups leave from: its resolver's addresses on its Docker networks (the
 * edge itself, in the host's network, asks only that resolver: edge-resolver.ts).
 */
async function edgeAddresses(): Promise<string[]> {
  const r = await docker(["inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}", `${EDGE}-dns`]);
  return r.stdout.split(" ").filter(Boolean);
}

/**
 * DNS flows (UDP or TCP to port 53) that the kernel's connection tracking lists from these
 * source addresses to anywhere: read from /proc/net/nf_conntrack, passively. Only the original
 * direction counts (a line's first src= and dport=): the reply tuple of the edge's own query to
 * its resolver (host → resolver:53) names the resolver as src too, and that flow is allowed.
 */
async function dnsFlowsFrom(sources: string[]): Promise<string[]> {
  const table = existsSync("/proc/net/nf_conntrack") ? readFileSync("/proc/net/nf_conntrack", "utf8") : "";
  return table.split("\n").filter((l) => {
    const original = / src=(\S+) dst=\S+ sport=\d+ dport=(\d+) /.exec(l);
    return original !== null && original[2] === "53" && sources.includes(original[1] ?? "");
  });
}

describe("public edge: platform deploy obtains ACME certificates (Pebble) and serves the internet", () => {
  let net: Internet | undefined;
  let pebble: Pebble | undefined;
  let tls: PebbleTls;
  let pebbleRoot = "";
  let env: Record<string, string> = {};
  let deployed: CliResult | undefined;
  let deployStarted = false;
  let deploy2Started = false;
  const records: string[] = [];
  let urls: Record<string, string> = {};
  /** web's platform URL's host (`<project>-web-<word>-<word>.apps.test`): it keeps serving beside its domains. */
  let webPlatformHost = "";
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
  /** The deploy's one warning: elsewhere's DNS points away from this server. */
  const elsewhereWarning = () =>
    `⚠ ${ELSEWHERE}: no certificate yet: DNS: ${ELSEWHERE} resolves to ${net!.clientAddress}, not to this server`;
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

    const copy = (to: string) => copyExample("fullstack", to);
    copy(dir);
    const yml = parseDocument(readFileSync(join(dir, "platform.yml"), "utf8"));
    expect(yml.getIn(["services", "web", "public"])).toBe(true);
    yml.setIn(["services", "web", "domains"], [SHOP, ELSEWHERE]);
    writeFileSync(join(dir, "platform.yml"), yml.toString());
    // The second stack: the same web app alone, public, claiming shop.
    copy(dir2);
    const second = parseDocument(readFileSync(join(dir2, "platform.yml"), "utf8"));
    second.deleteIn(["services", "database"]);
    second.deleteIn(["services", "api"]);
    second.setIn(["services", "web", "env"], { API_URL: "http://127.0.0.1:1" });
    second.deleteIn(["services", "web", "depends_on"]);
    second.setIn(["services", "web", "domains"], [SHOP]);
    writeFileSync(join(dir2, "platform.yml"), second.toString());
    // elsewhere's A record: the client's own address, inside the /30 but not this server.
    await pebble.addA(ELSEWHERE, [net.clientAddress]);
    records.push(ELSEWHERE);
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
      // (this sandbox's public DNS), never the machine's resolver, and compares with the server's
      // public address, serverAddress (the machine's other interfaces are not on "the internet":
      // a record to create names serverAddress). `platform domains` is run once without it too.
      PLATFORM_DNS_SERVERS: `${net.serverAddress}:${pebble.ports.dns}`,
      PLATFORM_PUBLIC_ADDRESS: net.serverAddress,
    };
  }, 120_000);

  afterAll(async () => {
    if (deploy2Started) {
      const d = await runCli(["destroy", "--yes", "--delete-data", "--project", project2], { cwd: dir2, env });
      if (d.code !== 0) console.warn(`[public-edge] destroy of the second stack failed (exit ${d.code}):\n${d.stdout}\n${d.stderr}`);
    }
    if (deployStarted) {
      const d = await cli("destroy", "--yes", "--delete-data", "--project", project);
      if (d.code !== 0) console.warn(`[public-edge] destroy failed (exit ${d.code}):\n${d.stdout}\n${d.stderr}`);
    }
    removeEdge(EDGE);
    rmSync(edgeRecordFile(EDGE), { force: true });
    // The stacks' image tags (destroy keeps images for a later deploy of the same project).
    for (const p of [project, project2]) {
      const tags = await docker(["images", "--format", "{{.Repository}}:{{.Tag}}", "--filter", `reference=platform/${p}_*`]);
      for (const tag of tags.stdout.split("\n").filter(Boolean)) await docker(["rmi", tag]);
    }
    for (const host of records) await pebble?.clearA(host).catch((e) => console.warn(`[public-edge] ${(e as Error).message}`));
    pebble?.stop();
    if (net) await destroyInternet(net);
    rmSync(work, { recursive: true, force: true });
    rmSync(new URL(backend.PLATFORM_BACKEND_URL as string).pathname, { recursive: true, force: true });
    forgetProject(project);
    forgetProject(project2);
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
    // One host has no certificate: elsewhere, whose DNS points away. It is reported with the
    // record to create (this server's address), before "Deployment complete", and not waited for.
    const warning = elsewhereWarning();
    expect(r.stdout.match(/^⚠.*$/gm), "the deploy's warnings").toEqual([warning]);
    const out = r.stdout.split("\n");
    const warnAt = out.indexOf(warning);
    const hint = out[warnAt + 1] ?? "";
    expect(hint.startsWith(`  hint: create the record ${ELSEWHERE}. A ${net!.serverAddress} `), hint).toBe(true);
    expect(warnAt).toBeLessThan(out.findIndex((l) => l.startsWith("Deployment complete")));
    const host = (s: string) => new RegExp(`^https://${project}-${s}-[a-z]+-[a-z]+\\.apps\\.test:${PORTS.https}$`);
    expect(urls.api).toMatch(host("api"));
    // web's URL is its first domain; its platform URL (not printed) keeps serving: its host is the
    // web container's host label under the apps domain.
    expect(urls.web).toBe(`https://${SHOP}:${PORTS.https}`);
    expect(urls.database).toBeUndefined();
    const label = await docker([
      "ps",
      "--filter",
      `label=platform.project=${project}`,
      "--filter",
      "label=platform.service=web",
      "--format",
      '{{.Label "platform.public-host"}}',
    ]);
    webPlatformHost = `${label.stdout.trim().split("\n")[0]}.${DOMAIN}`;
    expect(`https://${webPlatformHost}:${PORTS.https}`).toMatch(host("web"));

    // The edge is this test's own: public mode, in the host's network, listening on 80 and 443
    // of every interface (what else answers from the internet: "publishes nothing else" below).
    const inspect = await docker([
      "inspect",
      "-f",
      '{{.HostConfig.NetworkMode}} {{index .Config.Labels "platform.edge-mode"}} {{index .Config.Labels "platform.edge-listens"}}',
      EDGE,
    ]);
    expect(inspect.code, inspect.stderr).toBe(0);
    expect(inspect.stdout.trim()).toBe(`host public *:${PORTS.http},*:${PORTS.https}`);
    // The mode is remembered under this edge's name, not the shared edge's.
    expect(JSON.parse(readFileSync(edgeRecordFile(EDGE), "utf8"))).toMatchObject({
      mode: "public",
      appsDomain: DOMAIN,
      httpsPort: PORTS.https,
    });

    // Real validation: Pebble's VA fetched each host's challenge from serverAddress (the published ports).
    const { lines } = await edgeLog();
    const issuance: string[] = [];
    const hosts: Record<string, string> = { api: hostOf("api"), "web (platform URL)": webPlatformHost, "web (shop)": SHOP };
    for (const [s, h] of Object.entries(hosts)) {
      // Pebble's VA validated the host (it dialled serverAddress on the published port the
      // challenge needs), and the edge served that challenge's answer: HTTP-01 on <http> or
      // TLS-ALPN-01 on <https>, whichever Caddy chose (both are offered, both published).
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
    expect(pebble?.log().match(/set VALID by completed challenge/g)?.length).toBeGreaterThanOrEqual(3);
    // elsewhere was not waited for: no handshake for it, so no order, no issuance attempt.
    expect(pebble?.log(), "Pebble saw elsewhere").not.toContain(ELSEWHERE);
    expect(
      lines.filter((l) => JSON.stringify(l).includes(ELSEWHERE)),
      "the edge did something for elsewhere",
    ).toEqual([]);
    // printed on every run: the measurement is part of what this test is for
    console.log(
      `[public-edge] deploy ${r.seconds.toFixed(1)} s; issuance (edge's log): ${issuance.join(", ")}; serverAddress ${net?.serverAddress}`,
    );
  }, 900_000);

  it("both URLs (and web's platform URL) answer 200 over HTTPS from the internet, over HTTP/2, with HSTS", async () => {
    needDeploy();
    for (const url of [`${urls.web}/`, `https://${webPlatformHost}:${PORTS.https}/`, `${urls.api}/health`]) {
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
    for (const url of [`${urls.web}/`, `https://${webPlatformHost}:${PORTS.https}/`, `${urls.api}/health`]) {
      const pebbleOnly = await client(url, ["-o", "/dev/null", "-w", "%{http_code}"]);
      expect(pebbleOnly.stdout, pebbleOnly.stderr).toBe("200");
      const system = await client(url, ["-o", "/dev/null"], null);
      expect(system.code, "the system CAs must not verify a Pebble certificate").toBe(60);
      const directoryCa = await client(url, ["-o", "/dev/null"], tls.ca);
      expect(directoryCa.code, "the directory's TLS CA must not verify the served certificate").toBe(60);
    }
  });

  /**
   * The certificate the edge serves for `name` to a client in the namespace (openssl s_client,
   * SNI `name`, verified against Pebble's root and for that host name): its verification result,
   * subject alt names and issuer.
   */
  const servedTo = async (name: string) => {
    const connect = `${net!.serverAddress}:${PORTS.https}`;
    const sc = `openssl s_client -connect ${connect} -servername ${name} -CAfile ${pebbleRoot} -verify_hostname ${name} </dev/null`;
    const r = await runInInternet(net!, "timeout", ["10", "bash", "-c", sc], 15_000);
    const pem = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/.exec(r.stdout)?.[0];
    if (!pem) throw new Error(`no certificate from ${connect} for ${name} (exit ${r.code}): ${r.stdout}\n${r.stderr}`);
    const file = join(work, `served-${name}.pem`);
    writeFileSync(file, pem);
    const x = await run("openssl", ["x509", "-in", file, "-noout", "-ext", "subjectAltName", "-issuer"], 10_000);
    expect(x.code, x.stderr).toBe(0);
    const names = [...x.stdout.matchAll(/DNS:([^,\s]+)/g)].map((m) => m[1]);
    return { verify: /^\s*Verify return code: (.*)$/m.exec(r.stdout)?.[1], names, issuer: /^issuer=(.*)$/m.exec(x.stdout)?.[1] ?? "" };
  };

  it("the custom domain has its own certificate from Pebble that names it, and the platform URL keeps its own", async () => {
    needDeploy();
    const shop = await servedTo(SHOP);
    expect(shop.verify, "shop's certificate chains to Pebble's issuing root").toBe("0 (ok)");
    expect(shop.names).toEqual([SHOP]);
    expect(shop.issuer).toMatch(/Pebble Intermediate CA/);
    const platform = await servedTo(webPlatformHost);
    expect(platform.verify).toBe("0 (ok)");
    expect(platform.names).toEqual([webPlatformHost]);
    for (const url of [`https://${SHOP}:${PORTS.https}/`, `https://${webPlatformHost}:${PORTS.https}/`]) {
      const r = await client(url, ["-o", "/dev/null", "-w", "%{http_code}"]);
      expect(r.stdout, `${url}: ${r.stderr}`).toBe("200");
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
  // http://<host>:<http>/ is sent to https://<host>/ (443), where this server has no public edge.
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
    // ask port (2019, on the edge's own loopback address), the services' 8080, the API's own 8000,
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

  it("platform domains: shop points here and has its certificate; elsewhere points to the client, has none, and gets the record to create; exit 1", async () => {
    needDeploy();
    const ordersBefore = (pebble!.log().match(/Added order/g) ?? []).length;
    const row = (r: CliResult, domain: string) => r.stdout.split("\n").find((l) => l.startsWith(`${domain} `)) ?? "";
    const check = (r: CliResult) => {
      expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(1);
      expect(r.stdout).toMatch(/^DOMAIN\s+SERVICE\s+DNS\s+CERTIFICATE\s*$/m);
      expect(row(r, SHOP)).toMatch(/^\S+\s+web\s+points here\s+Pebble Intermediate CA [0-9a-f]+, expires \d{4}-\d\d-\d\d\s*$/);
      expect(row(r, ELSEWHERE)).toMatch(new RegExp(`^\\S+\\s+web\\s+points to ${net!.clientAddress}\\s+none yet\\s*$`));
      expect(r.stdout.match(/^hint: .*$/gm)).toEqual([
        `hint: create the DNS record ${ELSEWHERE}. A ${net!.serverAddress} for ${ELSEWHERE}`,
      ]);
    };
    const given = await cli("domains", "--project", project);
    check(given);
    // Without PLATFORM_PUBLIC_ADDRESS the server's addresses are its interfaces': serverAddress
    // is one of them, the client's is not. (The record to create then names the first of them.)
    const interfaces = await runCli(["domains", "--project", project], { cwd: dir, env: { ...env, PLATFORM_PUBLIC_ADDRESS: "" } });
    expect(interfaces.code, `${interfaces.stdout}\n${interfaces.stderr}`).toBe(1);
    expect(row(interfaces, SHOP)).toMatch(/\spoints here\s/);
    expect(row(interfaces, ELSEWHERE)).toMatch(new RegExp(`\\spoints to ${net!.clientAddress}\\s+none yet`));
    console.log(`[public-edge] platform domains: ${given.seconds.toFixed(1)} s, ${interfaces.seconds.toFixed(1)} s`);
    // Reading the domains' state orders no certificate: a handshake for elsewhere would make the
    // edge (elsewhere is in its allow-list) order one on demand, which the CA must refuse (its DNS
    // points away), on every run of the command. Let's Encrypt allows 5 failed validations per
    // host name per hour. The first `platform domains` made a TLS handshake for every domain,
    // elsewhere's too (2 failed orders, and about 15 s instead of 0.4 s); servedCertificates
    // (src/engine/certificates.ts) now checks DNS first and makes none for a name that points away.
    const elsewhereOrders = pebble!
      .log()
      .split("\n")
      .filter((l) => l.includes(`Value:"${ELSEWHERE}"`));
    expect(elsewhereOrders, "platform domains made the edge order a certificate for elsewhere").toEqual([]);
    expect((pebble!.log().match(/Added order/g) ?? []).length, "platform domains made the edge order a certificate").toBe(ordersBefore);
  }, 120_000);

  it("platform status shows the public edge and each public URL's certificate from Pebble", async () => {
    needDeploy();
    const r = await cli("status", "--project", project);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    const edgeLine = r.stdout.split("\n").find((l) => l.startsWith("edge: ")) ?? "";
    expect(edgeLine).toMatch(new RegExp(`^edge: public \\(${DOMAIN.replace(".", "\\.")} on `));
    expect(edgeLine).toContain(`certificates from ${pebble!.directoryByAddress} (account ops@${DOMAIN})`);
    const certLines = r.stdout.match(/^certificate: .*$/gm) ?? [];
    const soon = Date.now() + 80 * 86_400_000; // Pebble's profile: 90 days, as Let's Encrypt
    for (const url of Object.values(urls)) {
      const h = new URL(url).hostname;
      const line = certLines.find((l) => l.startsWith(`certificate: ${h} `)) ?? `(no certificate line for ${h})`;
      const m = /^certificate: \S+ from (Pebble Intermediate CA [0-9a-f]+), expires (\d{4}-\d\d-\d\d \d\d:\d\d) UTC$/.exec(line);
      expect(m, line).not.toBeNull();
      expect(Date.parse(`${m![2]!.replace(" ", "T")}Z`), `${h} expires in about 90 days`).toBeGreaterThan(soon);
    }
    expect(certLines.map((l) => l.split(" ")[1])).toEqual(expect.arrayContaining([SHOP, hostOf("api")]));
  }, 60_000);

  /** The ids of a service's running containers. */
  const containerIds = async (service: string) =>
    (
      await docker([
        "ps",
        "-q",
        "--no-trunc",
        "--filter",
        `label=platform.project=${project}`,
        "--filter",
        `label=platform.service=${service}`,
      ])
    ).stdout
      .split("\n")
      .filter(Boolean);
  /**
   * Gives api and web a new value of RELEASE in the deployed platform.yml: both containers are
   * replaced (web's image is built again, as next build sees the variables; BuildKit's cache
   * answers when an earlier run built the same value, and the redeploy takes ~8 s instead of ~30 s).
   */
  const setRelease = (n: number) => {
    const yml = parseDocument(readFileSync(join(dir, "platform.yml"), "utf8"));
    for (const s of ["api", "web"]) yml.setIn(["services", s, "env", "RELEASE"], String(n));
    writeFileSync(join(dir, "platform.yml"), yml.toString());
  };
  /** A deploy with the public edge: it succeeded, and warned only about elsewhere (whose DNS points away), as the first one. */
  const expectPublicDeploy = (r: CliResult, what: string) => {
    expect(r.code, `${what}: exit ${r.code}\n${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout, what).toMatch(/^Deployment complete \(dep_[a-z0-9]+\)$/m);
    expect(r.stdout.match(/^⚠.*$/gm), `${what}'s warnings`).toEqual([elsewhereWarning()]);
  };
  const events = () => eventCount(urls.api as string, pebble!.root);
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  const okIn = (result: LoadResult, p: Protocol, phase: string) =>
    (result.byProtocol[p].latencies.get(phase)?.length ?? 0) - result.byProtocol[p].failures.filter((f) => f.phase === phase).length;

  // The load comes from 127.0.0.1 (the edge publishes on every interface, loopback included), with
  // each URL's host as TLS server name and :authority, and trusts Pebble's issuing root only.
  it("zero downtime with the public edge: no request fails over HTTP/1.1 or HTTP/2 while 3 redeploys replace web and api", async () => {
    needDeploy();
    const before = await events();
    const load = startLoad({
      ...LIGHT_LOAD,
      ca: pebble!.root,
      // Bounds above what 3 redeploys need on a busy machine (a cold CI builds the Kubernetes
      // toolchain beside them: 55 to 75 s each there): the load must outlast the last redeploy.
      maxRequests: 8_000,
      maxMs: 420_000,
      pauseMs: ZD_PAUSE_MS,
      mix: [
        { name: "GET web / (shop)", url: `${urls.web}/` },
        { name: "GET api /health", url: `${urls.api}/health` },
        { name: "GET web / (platform URL)", url: `https://${webPlatformHost}:${PORTS.https}/` },
        eventPost(urls.api as string, "public load"),
      ],
    });
    const outcomes: string[] = [];
    let result: LoadResult | undefined;
    try {
      await sleep(5_000);
      load.setPhase("redeploys");
      for (let i = 1; i <= 3; i++) {
        const was = { api: await containerIds("api"), web: await containerIds("web") };
        setRelease(i);
        const r = await cli("deploy", "--yes", "--project", project);
        outcomes.push(`redeploy ${i}: exit ${r.code} in ${r.seconds.toFixed(1)} s; ${load.sent()} requests so far`);
        console.log(`[public-edge] ${outcomes.at(-1)}`);
        expectPublicDeploy(r, `redeploy ${i}`);
        for (const s of ["api", "web"] as const) {
          const now = await containerIds(s);
          expect(now.length, `${s} runs after redeploy ${i}`).toBe(1);
          expect(was[s], `redeploy ${i} replaced ${s}`).not.toContain(now[0]);
        }
      }
      load.setPhase("rest");
      await sleep(5_000);
    } finally {
      result = await load.stop();
      const all = [...result.latencies.values()].flat();
      console.log(
        [
          `[public-edge] zero downtime, public edge: ${result.sent} requests, ${result.failures.length} failed; p50 ${ms(quantile(all, 0.5))}, p99 ${ms(quantile(all, 0.99))}`,
          ...describeLoad(result),
          ...outcomes.map((o) => `  ${o}`),
        ].join("\n"),
      );
    }
    const { sent, byProtocol } = result;
    expect(result.stoppedBy, "the load reached a bound before the last redeploy ended: raise it").toBe("stop");
    expect(result.failures.slice(0, 20)).toEqual([]);
    expect({ "http/1.1": byProtocol["http/1.1"].failures.length, h2: byProtocol.h2.failures.length }).toEqual({ "http/1.1": 0, h2: 0 });
    for (const p of PROTOCOLS) {
      expect(byProtocol[p].sent / sent, `${p}'s share of the requests`).toBeGreaterThanOrEqual(0.2);
      expect(byProtocol[p].latencies.get("redeploys")?.length ?? 0, `${p} requests during the redeploys`).toBeGreaterThan(100);
    }
    // Every HTTP/2 answer came on a session that negotiated h2 (h2.ts fails any other), and they multiplexed.
    expect(result.h2.opened).toBeGreaterThanOrEqual(3);
    expect(result.h2.maxStreams, "the most HTTP/2 streams in flight at once on one session").toBeGreaterThan(1);
    // Every POST answered 201 is one row, no more.
    expect(await events()).toBe(before + eventsPosted(result));
  }, 600_000);

  /**
   * The local CA's root, as the local edge writes it into its data volume when it first starts:
   * read from the host's side of the volume every 20 ms when this process can (a local engine),
   * else from the containers every 250 ms; until found or `until` says stop.
   */
  const watchLocalRoot = async (until: () => boolean): Promise<{ pem: string; at: number } | undefined> => {
    const file = "caddy/pki/authorities/local/root.crt";
    const mount = (await docker(["volume", "inspect", "-f", "{{.Mountpoint}}", `${EDGE}-data`])).stdout.trim();
    const onHost = mount !== "" && existsSync(mount);
    while (!until()) {
      if (onHost) {
        const path = join(mount, file);
        const pem = existsSync(path) ? readFileSync(path, "utf8") : "";
        if (pem.includes("END CERTIFICATE")) return { pem, at: performance.now() };
        await sleep(20);
      } else {
        for (const name of [`${EDGE}-next`, EDGE]) {
          const r = await docker(["exec", name, "cat", `/data/${file}`], 5_000);
          if (r.code === 0 && r.stdout.includes("END CERTIFICATE")) return { pem: r.stdout, at: performance.now() };
        }
        await sleep(250);
      }
    }
    return undefined;
  };

  const edgeState = async () => {
    const r = await docker([
      "inspect",
      "-f",
      '{{index .Config.Labels "platform.edge-mode"}} {{.State.StartedAt}} {{index .Config.Labels "platform.edge-listens"}}',
      EDGE,
    ]);
    const [mode, started, ...bindings] = r.stdout.trim().split(" ");
    return { mode, startedAt: Date.parse(started ?? ""), bindings: bindings.join(" ") };
  };

  // The product starts the new edge beside the old one on the same port (SO_REUSEPORT, in the
  // host's network) and stops the old one gracefully once the new one serves. No request may fail
  // to connect or be cut (a handshake refused, a reset) in either direction, nor any request at
  // all after the switch to public. Certificate failures in the switch to local are the
  // CA changing with the mode (public: Pebble's; local: the platform's own), measured and
  // listed apart: a browser that trusts only one of them sees the other's hosts fail by design.
  // At the end the public URLs serve Pebble's certificates again. The load trusts Pebble's
  // root and, once the local edge has made it, its local CA (as a user of `platform ca` would),
  // and speaks only to the hosts under the apps domain (the local edge serves no custom domain).
  // A GET whose kept connection the old edge closed may be resent on a new one, once per
  // connection and switch, as a browser does silently; a POST on a kept connection, which a
  // browser shows as an error, may not fail, and each one answered 201 is one row.
  it("a switch to the local edge and back under load: the gaps are measured, the load recovers, public URLs serve again", async () => {
    needDeploy();
    const localEnv = { ...env, PLATFORM_EDGE: "local" };
    let localRoot = "";
    const eventsBefore = await events();
    const load = startLoad({
      ...LIGHT_LOAD,
      ca: () => pebble!.root + localRoot,
      maxRequests: 3_000,
      maxMs: 180_000,
      pauseMs: SWITCH_PAUSE_MS,
      errorPauseMs: 50,
      timeoutMs: 10_000,
      resends: "allowed",
      mix: [
        { name: "GET api /health", url: `${urls.api}/health` },
        { name: "GET web / (platform URL)", url: `https://${webPlatformHost}:${PORTS.https}/` },
        eventPost(urls.api as string, "mode switch"),
      ],
    });
    // A generous bound for a handshake: the machine is busy with the deploy meanwhile.
    const probe = startHandshakeProbe(PORTS.https, hostOf("api"), { everyMs: 20, timeoutMs: 3_000, maxProbes: 5_000 });
    let probes: Probe[] = [];
    let rootAt = Number.POSITIVE_INFINITY;
    const QUIET_MS = 6_000;
    const switches: {
      name: string;
      phase: string;
      after: string;
      t0: number;
      wall0: number;
      deploy?: CliResult;
      quietFrom: number;
      edgeStarted?: number;
    }[] = [];
    const lines: string[] = [];
    let result: LoadResult | undefined;
    try {
      // The first phase is "rest" (public, before the switches): the load starts in it.
      await sleep(4_000);
      for (const [name, to, phase, after] of [
        ["public -> local", localEnv, "switching to local", "local"],
        ["local -> public", env, "switching to public", "public after"],
      ] as const) {
        load.setPhase(phase);
        const s: (typeof switches)[number] = { name, phase, after, t0: performance.now(), wall0: Date.now(), quietFrom: 0 };
        switches.push(s);
        let deployDone = false;
        // The load trusts the local CA from the moment its root is in the volume, not when the deploy ends.
        const watcher = localRoot
          ? undefined
          : watchLocalRoot(() => deployDone).then((root) => {
              if (root) localRoot = root.pem;
              return root;
            });
        s.deploy = await runCli(["deploy", "--yes", "--project", project], { cwd: dir, env: to });
        deployDone = true;
        const root = await watcher;
        if (root) {
          rootAt = root.at;
          lines.push(`  the local CA's root was read ${((root.at - s.t0) / 1000).toFixed(2)} s after the deploy began`);
        }
        const d = s.deploy;
        const warnings = d.stdout.match(/^⚠.*$/gm) ?? [];
        lines.push(
          `  ${name}: deploy exit ${d.code} in ${d.seconds.toFixed(1)} s; warnings: ${warnings.length ? warnings.join(" | ") : "none"}`,
        );
        expect(d.code, `${name}: exit ${d.code}\n${d.stdout}\n${d.stderr}`).toBe(0);
        expect(d.stdout).toMatch(/^Deployment complete \(dep_[a-z0-9]+\)$/m);
        const edge = await edgeState();
        s.edgeStarted = edge.startedAt;
        lines.push(`  ${name}: edge now ${edge.mode}, ports ${edge.bindings}; printed URLs ${JSON.stringify(parseUrls(d.stdout))}`);
        expect(edge.mode, `${name}: the edge's mode`).toBe(to === env ? "public" : "local");
        if (to === localEnv) {
          // `platform ca` prints the local edge's root: the one the load was given.
          const ca = await runCli(["ca"], { cwd: dir, env: localEnv });
          expect(ca.code, ca.stderr).toBe(0);
          expect(ca.stdout.trim()).toBe(localRoot.trim());
          // Measured only: what the URL the local deploy printed for web (its custom domain) answers.
          const printed = parseUrls(d.stdout).web;
          const answer = await httpsRequest(`${printed}/`, pebble!.root + localRoot, { timeoutMs: 5_000 }).then(
            (r) => `HTTP ${r.status}`,
            (e: Error) => e.message,
          );
          lines.push(`  local edge: web's printed URL ${printed}/ answers: ${answer}`);
          // The local edge listens on 127.0.0.1, not for the internet.
          expect(await reachable(PORTS.https), "the local edge answers from the internet").toBe(false);
        } else expectPublicDeploy(d, name);
        load.setPhase(after);
        s.quietFrom = performance.now();
        await sleep(QUIET_MS);
      }
    } finally {
      result = await load.stop();
      probes = await probe.stop();
    }
    // Excused: only a chain the load cannot trust yet (the CA changed with the mode), in OpenSSL's
    // words for it. A name the certificate does not cover (ERR_TLS_CERT_ALTNAME_INVALID), or one
    // expired or not yet valid, is the edge serving the wrong certificate: a failure.
    const trustFailure = (f: LoadFailure) =>
      /unable to get (local )?issuer certificate|unable to verify the first certificate|self[- ]signed certificate in certificate chain/i.test(
        f.what,
      );
    const sec = (t: number, s: (typeof switches)[number]) => `+${((t - s.t0) / 1000).toFixed(2)} s`;
    const summary: string[] = [];
    for (const s of switches) {
      const failed = result.failures.filter((f) => f.phase === s.phase || f.phase === s.after).sort((a, b) => a.at - b.at);
      const down = failed.filter((f) => !trustFailure(f));
      const byProto = PROTOCOLS.map((p) => `${p} ${failed.filter((f) => f.protocol === p).length}`).join(", ");
      const sent = PROTOCOLS.map(
        (p) =>
          `${p} ${(result.byProtocol[p].latencies.get(s.phase)?.length ?? 0) + (result.byProtocol[p].latencies.get(s.after)?.length ?? 0)}`,
      ).join(", ");
      const started = s.edgeStarted ? `; the new edge started at +${((s.edgeStarted - s.wall0) / 1000).toFixed(2)} s` : "";
      summary.push(`  ${s.name} (deploy ${s.deploy?.seconds.toFixed(1)} s${started}): sent ${sent}; failed ${failed.length} (${byProto})`);
      const window = (list: LoadFailure[]) => {
        const first = list[0]!;
        const last = list.at(-1)!;
        return `first failure at ${sec(first.at, s)} (sent ${sec(first.sentAt, s)}), last at ${sec(last.at, s)}: ${((last.at - first.at) / 1000).toFixed(3)} s first to last failure`;
      };
      summary.push(down.length > 0 ? `    unreachable (${down.length} failed to connect): ${window(down)}` : "    no connection failed");
      const trust = failed.filter(trustFailure);
      if (trust.length > 0) {
        const early = trust.filter((f) => f.sentAt < rootAt).length;
        summary.push(
          `    ${trust.length} failed on the certificate (the edge answered, with a CA the load did not trust yet; ${early} of them sent before the local root existed): ${window(trust)}`,
        );
      }
      // The handshake probe: from the first probe that failed to the first that succeeded after the last failure.
      const mine = probes.filter((p) => p.sentAt >= s.t0 && p.sentAt < (s.quietFrom || Number.POSITIVE_INFINITY) + QUIET_MS);
      const bad = mine.filter((p) => !p.ok);
      if (bad.length > 0) {
        const back = mine.find((p) => p.ok && p.sentAt > bad.at(-1)!.sentAt);
        const whats = [...new Set(bad.map((p) => p.what))].join(", ");
        const issuers = [...new Set(mine.filter((p) => p.ok).map((p) => p.what))].join(" -> ");
        summary.push(
          `    handshake probe (${mine.length} probes, every 20 ms): no handshake from ${sec(bad[0]!.sentAt, s)} to ${back ? sec(back.sentAt, s) : "the end"}: ${back ? ((back.sentAt - bad[0]!.sentAt) / 1000).toFixed(3) : "?"} s (${bad.length} probes failed: ${whats}); issuers served: ${issuers}`,
        );
      } else summary.push(`    handshake probe (${mine.length} probes): every handshake succeeded`);
      const reasons = new Map<string, number>();
      for (const f of failed) {
        const key = `${f.client}: ${f.what.replace(/\d+\.\d+\.\d+\.\d+:\d+/g, "<addr>").slice(0, 200)}`;
        reasons.set(key, (reasons.get(key) ?? 0) + 1);
      }
      for (const [k, n] of [...reasons].sort((a, b) => b[1] - a[1])) summary.push(`      ${n} x ${k}`);
    }
    console.log(["[public-edge] edge mode switches under load:", ...lines, ...summary, ...describeLoad(result)].join("\n"));

    expect(result.stoppedBy, "the load reached a bound before the switches ended: raise it").toBe("stop");
    // It recovers: after each switch, both protocols' requests succeed again, and none failed in
    // the second half of the quiet time after it.
    // Every failure counts: a request cut or refused, a fresh connection, a handshake, an answer
    // with an error. (The HTTP/2 client sends again only a request whose HEADERS never left it,
    // as browsers do: helpers/h2.ts.)
    for (const s of switches) {
      const failed = result.failures.filter((f) => f.phase === s.phase || f.phase === s.after);
      expect(
        failed.filter((f) => !trustFailure(f)).map((f) => `${f.protocol} ${f.request}: ${f.what}`),
        `requests that failed to connect or were cut in ${s.name}`,
      ).toEqual([]);
      expect(
        probes.filter((p) => !p.ok && p.sentAt >= s.t0 && p.sentAt < s.quietFrom + QUIET_MS).map((p) => p.what),
        `handshakes that failed in ${s.name}`,
      ).toEqual([]);
      if (s.after === "public after")
        expect(
          failed.map((f) => f.what),
          `failed requests in ${s.name}`,
        ).toEqual([]);
      for (const p of PROTOCOLS) expect(okIn(result, p, s.after), `${p} requests that succeeded after ${s.name}`).toBeGreaterThan(0);
      const late = result.failures.filter((f) => f.phase === s.after && f.sentAt > s.quietFrom + QUIET_MS / 2);
      expect(late, `failures late after ${s.name}`).toEqual([]);
    }
    expect(
      unexplainedResends(
        result,
        switches.map((s) => s.phase),
        switches.length,
      ),
      "only what a browser resends silently when the edge hands over: a GET whose kept connection the old edge closed, once per connection and switch, during a switch",
    ).toEqual([]);
    expect(eventsPosted(result), "POSTs answered 201 across the switches").toBeGreaterThan(0);
    expect(await events(), "every POST answered 201 is one row, no more").toBe(eventsBefore + eventsPosted(result));
    // The old edges ended their HTTP/2 sessions in two steps (the patched build of Caddy,
    // scripts/setup/go/caddy/patches.txt): first a GOAWAY that refuses nothing.
    expect(
      result.h2.events.filter((e) => /GOAWAY/.test(e)),
      "the old edges' HTTP/2 sessions end with a GOAWAY whose last stream is 2^31-1 first",
    ).toEqual(expect.arrayContaining([expect.stringContaining("GOAWAY NO_ERROR (last stream 2147483647)")]));
    // The public URLs serve again, from the internet, with Pebble's certificates.
    for (const url of [`${urls.web}/`, `https://${webPlatformHost}:${PORTS.https}/`, `${urls.api}/health`]) {
      const r = await client(url, ["-o", "/dev/null", "-w", "%{http_code}"]);
      expect(r.stdout, `${url}: ${r.stderr}`).toBe("200");
    }
    for (const host of [SHOP, hostOf("api")]) {
      const served = await servedTo(host);
      expect(served.verify, `${host}'s certificate chains to Pebble's root`).toBe("0 (ok)");
      expect(served.issuer).toMatch(/Pebble Intermediate CA/);
    }
    expect(JSON.parse(readFileSync(edgeRecordFile(EDGE), "utf8"))).toMatchObject({ mode: "public", httpsPort: PORTS.https });
  }, 600_000);

  it("a second stack that claims shop is refused, naming the domain and its owner; shop keeps serving", async () => {
    needDeploy();
    deploy2Started = true;
    const r = await runCli(["deploy", "--yes", "--project", project2], { cwd: dir2, env });
    const out = `${r.stdout}\n${r.stderr}`;
    console.log(`[public-edge] second stack's deploy: exit ${r.code} in ${r.seconds.toFixed(1)} s`);
    expect(r.code, out).not.toBe(0);
    expect(out).toContain(`domain "${SHOP}" is already claimed by project ${project}`);
    expect(out).not.toMatch(/^Deployment complete/m);
    // Its web container was never made; the first stack's still claims shop.
    const claim = await docker(["ps", "-a", "--filter", `label=platform.domain.${SHOP}`, "--format", '{{.Label "platform.project"}}']);
    expect(claim.stdout.trim().split("\n")).toEqual([project]);
    const shop = await client(`https://${SHOP}:${PORTS.https}/`, ["-o", "/dev/null", "-w", "%{http_code}"]);
    expect(shop.stdout, shop.stderr).toBe("200");
    expect((await servedTo(SHOP)).names).toEqual([SHOP]);
  }, 600_000);
});
