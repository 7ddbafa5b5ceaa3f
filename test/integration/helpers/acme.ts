// A real ACME CA for integration tests: Pebble (Let's Encrypt's test CA, real HTTP-01
// validation) and pebble-challtestsrv (the DNS Pebble resolves names through), both built by
// scripts/setup/pebble.sh. Used with helpers/internet.ts: the servers listen on the
// internet's serverAddress (and their management APIs on 127.0.0.1 only), so every packet
// stays on loopback or on the test's own veth pair.
//
//   serverAddress:14000  Pebble's ACME directory (HTTPS)
//   serverAddress:53     challtestsrv's DNS: every A query answers `defaultIPv4` unless a record
//                        was added (addA); no AAAA. Pebble's only resolver.
//   127.0.0.1:<free>     Pebble's management API (its issuing roots: /roots/0)
//   127.0.0.1:<free>     challtestsrv's management API (/add-a, /clear-a)
// The two management APIs take free ports of their own (env.ts freePort): the directory and the
// DNS listen in the test's own namespace, but these are on the host's loopback, where the test
// files that npm test runs side by side (a public edge's, the cluster's front door) would meet.
//
// Pebble validates HTTP-01 at <A record>:httpPort and TLS-ALPN-01 at <A record>:tlsPort: the
// host ports Docker publishes the edge's 80 and 443 on (where a real CA dials 80 and 443).
// Findings from public-edge-acme.test.ts (2026-11-26): Caddy honours Retry-After, so a
// retryAfter of 1 s keeps an issuance around 0.4 to 1.4 s (Pebble's example 3 s / 5 s costs
// about 4 s more); PEBBLE_VA_NOSLEEP and PEBBLE_WFE_NONCEREJECT=0 switch off Pebble's random
// validation delay and badNonce answers, so what a test measures is the protocol.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { createServer } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { freePort } from "./env.js";
import { run } from "./internet.js";

/** Debian's Docker CLI when there is one (the set-up's choice: it has BuildKit). */
export const DOCKER = process.env.PLATFORM_DOCKER_CLI ?? (existsSync("/usr/bin/docker") ? "/usr/bin/docker" : "docker");
export const PLATFORM_HOME = process.env.PLATFORM_HOME ?? join(homedir(), ".platform");

/** A Docker CLI command, bounded in time; never throws on a non-zero exit. */
export const docker = (args: string[], timeoutMs?: number) => run(DOCKER, args, timeoutMs);

export interface PebbleRecord {
  version: string;
  pebble: string;
  challtestsrv: string;
  /** The root of Pebble's bundled test certificates (minica), which signs `cert`. */
  minicaRoot: string;
  /** Pebble's bundled HTTPS certificate: names `localhost` and `pebble`, never an IP address. */
  cert: string;
  key: string;
}

/** Written by scripts/setup/pebble.sh. Fails loudly (never skips) when the set-up did not run. */
export function pebbleRecord(): PebbleRecord {
  const file = join(PLATFORM_HOME, "pebble.json");
  if (!existsSync(file)) throw new Error(`no ${file}: run bash scripts/setup/pebble.sh first`);
  return JSON.parse(readFileSync(file, "utf8")) as PebbleRecord;
}

/** Says which address:port is taken, before a server fails with a less clear message. */
export function assertFree(host: string, port: number, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", (e) => reject(new Error(`${host}:${port} (${what}) is in use: ${e.message}`)));
    s.listen(port, host, () => s.close(() => resolve()));
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `ok`, at most `attempts` times, `intervalMs` apart. */
export async function waitFor(what: string, attempts: number, intervalMs: number, ok: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (await ok()) return;
    await sleep(intervalMs);
  }
  throw new Error(`timed out waiting for ${what} (${attempts} attempts, ${intervalMs} ms apart)`);
}

/**
 * Starts a server on the host. setpriv's parent-death signal kills it if this test process dies
 * (a crash must not leave Pebble holding its ports). No proxy variables: Pebble's validation
 * must dial the sandbox itself. PEBBLE_VA_ALWAYS_VALID is removed: validation must happen.
 */
export function startServer(file: string, flags: Record<string, string>, env: Record<string, string>, log: string[]): ChildProcess {
  const args = Object.entries(flags).flatMap(([k, v]) => [`-${k}`, v]);
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const k of Object.keys(childEnv)) if (/^(https?|all|no)_proxy$/i.test(k) || k === "PEBBLE_VA_ALWAYS_VALID") delete childEnv[k];
  const [cmd, argv] = existsSync("/usr/bin/setpriv") ? ["/usr/bin/setpriv", ["--pdeathsig", "KILL", "--", file, ...args]] : [file, args];
  const child = spawn(cmd, argv as string[], { env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  for (const s of [child.stdout, child.stderr]) s?.on("data", (c) => log.push(String(c)));
  return child;
}

/** HTTPS GET to a management API on 127.0.0.1, trusting only `ca` (PEM text), with SNI localhost. */
export function httpsGetLocal(port: number, path: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const opts = { host: "127.0.0.1", port, path, ca, servername: "localhost", timeout: 5000 };
    const req = request(opts, (res) => {
      let body = "";
      res.on("data", (c) => {
        body += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end();
  });
}

/** Pebble's HTTPS: a certificate, its key, and the PEM file of the CA that verifies it (all paths). */
export interface PebbleTls {
  cert: string;
  key: string;
  ca: string;
}

/**
 * A throwaway CA and, signed by it, a server certificate for `IP:<address>`, `IP:127.0.0.1` and
 * `DNS:localhost`, made with the openssl CLI in `dir` (valid one day). For a Pebble whose
 * directory a container must reach by IP address: Pebble's bundled certificate names only
 * `localhost` and `pebble`, and a container the test does not start itself (the product's edge)
 * cannot be given `--add-host pebble:...`.
 */
export async function makeDirectoryTls(dir: string, address: string): Promise<PebbleTls> {
  const p = (f: string) => join(dir, f);
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  const openssl = async (args: string[]) => {
    const r = await run("openssl", args, 20_000);
    if (r.code !== 0) throw new Error(`openssl ${args[0]} failed (exit ${r.code}): ${r.stderr}`);
  };
  // biome-ignore format: one openssl option per line
  await openssl([
    "req", "-x509", ...ec, "-keyout", p("ca-key.pem"), "-out", p("ca.pem"), "-days", "1",
    "-subj", "/CN=platform test ACME directory CA",
    "-addext", "basicConstraints=critical,CA:TRUE",
    "-addext", "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  await openssl(["req", ...ec, "-keyout", p("key.pem"), "-out", p("server.csr"), "-subj", `/CN=${address}`]);
  writeFileSync(
    p("server.ext"),
    [
      `subjectAltName = IP:${address}, IP:127.0.0.1, DNS:localhost`,
      "basicConstraints = critical, CA:FALSE",
      "keyUsage = critical, digitalSignature",
      "extendedKeyUsage = serverAuth",
      "",
    ].join("\n"),
  );
  // biome-ignore format: one openssl option per line
  await openssl([
    "x509", "-req", "-in", p("server.csr"), "-CA", p("ca.pem"), "-CAkey", p("ca-key.pem"), "-CAcreateserial",
    "-out", p("cert.pem"), "-days", "1", "-extfile", p("server.ext"),
  ]);
  return { cert: p("cert.pem"), key: p("key.pem"), ca: p("ca.pem") };
}

export interface PebblePorts {
  /** The ACME directory, on serverAddress. */
  acme: number;
  /** Pebble's management API, on 127.0.0.1. */
  mgmt: number;
  /** challtestsrv's management API, on 127.0.0.1. */
  challMgmt: number;
  /** challtestsrv's DNS, on serverAddress. */
  dns: number;
}

/** The ports in the test's namespace; startPebble picks free ones for the management APIs. */
export const PEBBLE_PORTS: Pick<PebblePorts, "acme" | "dns"> = { acme: 14000, dns: 53 };

export interface StartPebbleOptions {
  /** Where the directory and the DNS listen, and the A answer for every name (helpers/internet.ts). */
  serverAddress: string;
  /** The host port Pebble validates HTTP-01 on: where the edge's port 80 is published. */
  httpPort: number;
  /** The host port Pebble validates TLS-ALPN-01 on: where the edge's port 443 is published. */
  tlsPort: number;
  /** Pebble's HTTPS; its bundled localhost/pebble certificate (minica) when absent. */
  tls?: PebbleTls;
  /** Written here: Pebble's configuration file. */
  dir: string;
  /** The A answer for every name, when the server is not at serverAddress (a server in its own namespace). */
  answer?: string;
}

export interface Pebble {
  /** The directory URL by address: https://<serverAddress>:<acme>/dir. */
  directoryByAddress: string;
  ports: PebblePorts;
  /** The PEM file that verifies Pebble's own HTTPS (directory and management API). */
  tlsCa: string;
  /** Pebble's issuing root (PEM), fetched at start: Pebble makes a new one at every start. */
  root: string;
  /** Everything Pebble and challtestsrv have printed so far. */
  log: () => string;
  challLog: () => string;
  /** A GET on Pebble's management API. */
  mgmt: (path: string) => Promise<{ status: number; body: string }>;
  /** An A record in challtestsrv (names without one answer serverAddress). */
  addA: (host: string, addresses: string[]) => Promise<void>;
  /** Removes a host's A record from challtestsrv (it answers serverAddress again). */
  clearA: (host: string) => Promise<void>;
  stop: () => void;
}

/**
 * Starts challtestsrv (DNS only) and Pebble, waits (bounded) until both management APIs answer,
 * and fetches Pebble's issuing root. Throws with both logs when they do not come up.
 */
export async function startPebble(o: StartPebbleOptions): Promise<Pebble> {
  const rec = pebbleRecord();
  const ports: PebblePorts = { ...PEBBLE_PORTS, mgmt: await freePort(), challMgmt: await freePort() };
  const tls = o.tls ?? { cert: rec.cert, key: rec.key, ca: rec.minicaRoot };
  await assertFree("127.0.0.1", ports.mgmt, "Pebble's management API");
  await assertFree("127.0.0.1", ports.challMgmt, "challtestsrv's management API");
  await assertFree(o.serverAddress, ports.dns, "challtestsrv's DNS");
  await assertFree(o.serverAddress, ports.acme, "Pebble's ACME directory");

  const pebbleLog: string[] = [];
  const challLog: string[] = [];
  const procs: ChildProcess[] = [];
  const stop = () => {
    for (const p of procs) if (p.exitCode === null) p.kill("SIGTERM");
  };
  // DNS only: its HTTP-01, TLS-ALPN-01 and DoH test servers are off.
  const dns = `${o.serverAddress}:${ports.dns}`;
  const chall = { dnsserver: dns, management: `127.0.0.1:${ports.challMgmt}`, defaultIPv4: o.answer ?? o.serverAddress, defaultIPv6: "" };
  procs.push(startServer(rec.challtestsrv, { ...chall, http01: "", https01: "", tlsalpn01: "", doh: "" }, {}, challLog));
  const pebbleConfig = {
    listenAddress: `${o.serverAddress}:${ports.acme}`,
    managementListenAddress: `127.0.0.1:${ports.mgmt}`,
    certificate: tls.cert,
    privateKey: tls.key,
    httpPort: o.httpPort,
    tlsPort: o.tlsPort,
    ocspResponderURL: "",
    externalAccountBindingRequired: false,
    retryAfter: { authz: 1, order: 1 },
    keyAlgorithm: "ecdsa",
    profiles: { default: { description: "90 days, as Let's Encrypt", validityPeriod: 7776000 } },
  };
  const config = join(o.dir, "pebble-config.json");
  writeFileSync(config, JSON.stringify({ pebble: pebbleConfig }, null, 2));
  const pebbleEnv = { PEBBLE_VA_NOSLEEP: "1", PEBBLE_WFE_NONCEREJECT: "0" };
  procs.push(startServer(rec.pebble, { config, dnsserver: dns }, pebbleEnv, pebbleLog));

  const ca = readFileSync(tls.ca, "utf8");
  const mgmt = (path: string) => httpsGetLocal(ports.mgmt, path, ca);
  const roots = () => mgmt("/roots/0").catch(() => ({ status: 0, body: "" }));
  const challUp = () =>
    fetch(`http://127.0.0.1:${ports.challMgmt}/`, { signal: AbortSignal.timeout(2000) })
      .then(() => true)
      .catch(() => false);
  try {
    // Bounded: 50 x 200 ms. Both start in well under a second.
    await waitFor("Pebble's management API", 50, 200, async () => (await roots()).status === 200);
    await waitFor("challtestsrv's management API", 50, 200, challUp);
  } catch (e) {
    stop();
    throw new Error(`${(e as Error).message}\nPebble:\n${pebbleLog.join("")}\nchalltestsrv:\n${challLog.join("")}`);
  }
  const root = (await roots()).body;
  if (!root.includes("BEGIN CERTIFICATE")) {
    stop();
    throw new Error(`Pebble's /roots/0 is no PEM certificate: ${root.slice(0, 200)}`);
  }
  return {
    directoryByAddress: `https://${o.serverAddress}:${ports.acme}/dir`,
    ports,
    tlsCa: tls.ca,
    root,
    log: () => pebbleLog.join(""),
    challLog: () => challLog.join(""),
    mgmt,
    addA: async (host, addresses) => {
      const r = await fetch(`http://127.0.0.1:${ports.challMgmt}/add-a`, {
        method: "POST",
        body: JSON.stringify({ host, addresses }),
        signal: AbortSignal.timeout(5000),
      });
      if (r.status !== 200) throw new Error(`challtestsrv /add-a ${host}: HTTP ${r.status} ${await r.text()}`);
    },
    clearA: async (host) => {
      const r = await fetch(`http://127.0.0.1:${ports.challMgmt}/clear-a`, {
        method: "POST",
        body: JSON.stringify({ host }),
        signal: AbortSignal.timeout(5000),
      });
      if (r.status !== 200) throw new Error(`challtestsrv /clear-a ${host}: HTTP ${r.status} ${await r.text()}`);
    },
    stop,
  };
}
