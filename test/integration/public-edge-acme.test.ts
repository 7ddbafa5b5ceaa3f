// Groundwork for the public edge: Caddy (platform-local/caddy:2.11) in public mode gets a real
// ACME certificate from a real ACME CA (Pebble, real HTTP-01 validation), and a client "on the
// internet" reaches it over HTTPS. Run alone:
//   source /root/.platform/env.sh && bash scripts/setup/pebble.sh && npx vitest run test/integration/public-edge-acme.test.ts
//
// Topology (all made here, all removed at the end). Traffic goes to 127.0.0.1 or to the veth
// pair this test creates, nowhere else:
//   client netns (helpers/internet.ts) ── veth, a /30 in 10.250.0.0/16 ── root namespace
//     serverAddress (root side of the veth) = the server's public address:
//       :<http>, :<https>  (free ports) the Caddy container's 80/443, published by Docker on 0.0.0.0
//       :14000          Pebble's ACME directory. Its certificate names "pebble", so the container
//                       gets `--add-host pebble:<serverAddress>`.
//       :53             pebble-challtestsrv's DNS: every A query answers serverAddress, and there
//                       is no AAAA. It is also the container's only resolver (`--dns`), so no
//                       lookup leaves the sandbox.
//     127.0.0.1:<free> Pebble's management API (its roots) and challtestsrv's API
//   (Pebble and challtestsrv are started by helpers/acme.ts, which the product test shares.)
//
// Findings (2026-11-26, Docker 20.10 with iptables, default bridge):
// - Caddy -> Pebble: the container dials serverAddress:14000. The packet leaves by the
//   container's default route (docker0's gateway, 172.17.0.1), but its destination is the veth
//   address, which is local to the root namespace, so the host delivers it to Pebble. The
//   bridge gateway would work too, but that is Docker's address, not ours, and it differs per
//   Docker network. The veth address is also the one the public reaches, as on a real host.
// - Pebble -> Caddy (HTTP-01): Pebble resolves app.apps.test through challtestsrv to
//   serverAddress and dials serverAddress:<http>. That is its httpPort: the published host port,
//   where a real CA dials :80. Docker's OUTPUT DNAT (any local address except 127/8) takes the
//   connection to the container's :80. docker-proxy is not involved: Caddy logs the request as
//   coming from serverAddress itself, not from 172.17.0.1. Pebble fetches the token 3 times (its
//   multi-perspective validation).
// - Client -> Caddy: Docker's PREROUTING DNAT on the veth, then the FORWARD accept rule Docker
//   adds for each published port. We add no iptables rule. Caddy sees the client's own address.
// - Issuance (Caddy's "obtaining certificate" to "certificate obtained successfully"): 0.4 to
//   1.4 s over 7 runs with retryAfter 1 s. With Pebble's example retryAfter (authz 3 s, order 5 s)
//   it took 4.3 to 5.4 s, because Caddy's ACME client honours Retry-After. From container start
//   to the first HTTPS 200: 1.2 to 3.0 s. The test prints both on every run.
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertFree, docker, PEBBLE_PORTS, type Pebble, pebbleRecord, startPebble, waitFor } from "./helpers/acme.js";
import { freePort } from "./helpers/env.js";
import { createInternet, destroyInternet, type Internet, runInInternet } from "./helpers/internet.js";

const IMAGE = "platform-local/caddy:2.11";
const HOST = "app.apps.test";
// Free ports (env.ts freePort): npm test runs files side by side, and public-edge publishes its edge too.
const PORTS = { http: await freePort(), https: await freePort(), acme: PEBBLE_PORTS.acme };
const CONTAINER = `plt-test-acme-${process.pid}-${randomBytes(3).toString("hex")}`;

/** The Caddyfile of the edge in public mode. */
function caddyfile(): string {
  // `cert_issuer acme { disable_tlsalpn_challenge }` leaves HTTP-01 as the only challenge, so
  // this proves validation over port 80. The global acme_ca, acme_ca_root and email fill in
  // that issuer (`caddy adapt` shows one acme issuer, no ZeroSSL fallback). Caddy answers ACME
  // challenges before any route (its Server.ServeHTTP calls HandleHTTPChallenge first). The
  // exception below says so in the config, and an unknown token gets a 404, not a redirect.
  return `{
	email ops@apps.test
	acme_ca https://pebble:${PORTS.acme}/dir
	acme_ca_root /etc/caddy/pebble.minica.pem
	cert_issuer acme {
		disable_tlsalpn_challenge
	}
}

http://${HOST} {
	@redirect not path /.well-known/acme-challenge/*
	redir @redirect https://{host}{uri} 308
	respond 404
}

${HOST} {
	log
	header Strict-Transport-Security "max-age=31536000"
	respond "hello"
}
`;
}

describe("public edge: Caddy obtains a real ACME certificate from Pebble over a simulated internet", () => {
  let net: Internet;
  let dir: string;
  let containerStart = 0;
  let pebble: Pebble | undefined;

  /** curl from the client namespace; the name resolves to serverAddress (--resolve), as public DNS would. */
  const client = (scheme: "http" | "https", path: string, extra: string[] = [], trustPebble = true) => {
    const port = scheme === "http" ? PORTS.http : PORTS.https;
    const ca = scheme === "https" && trustPebble ? ["--cacert", join(dir, "pebble-root.pem")] : [];
    const args = ["-sS", "--noproxy", "*", "--max-time", "5", "--resolve", `${HOST}:${port}:${net.serverAddress}`, ...ca, ...extra];
    return runInInternet(net, "curl", [...args, `${scheme}://${HOST}:${port}${path}`], 10_000);
  };
  const caddyLogs = async () => {
    const r = await docker(["logs", CONTAINER]);
    return (r.stdout + r.stderr)
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  };

  beforeAll(async () => {
    const rec = pebbleRecord();
    // Containers of crashed earlier runs (their pid is gone); stale namespaces go in createInternet.
    const old = await docker(["ps", "-a", "--filter", "name=^plt-test-acme-", "--format", "{{.Names}}"]);
    for (const name of old.stdout.split("\n").filter(Boolean)) {
      const pid = Number(/^plt-test-acme-(\d+)-/.exec(name)?.[1]);
      if (pid && pid !== process.pid && !existsSync(`/proc/${pid}`)) await docker(["rm", "-f", "-v", name]);
    }
    net = await createInternet();
    dir = mkdtempSync(join(tmpdir(), "plt-acme-"));
    await assertFree("0.0.0.0", PORTS.http, "Caddy's published HTTP port");
    await assertFree("0.0.0.0", PORTS.https, "Caddy's published HTTPS port");
    // Pebble's bundled certificate (it names "pebble"): the container gets --add-host below.
    // httpPort/tlsPort are the host ports Docker publishes the container's 80/443 on.
    pebble = await startPebble({ serverAddress: net.serverAddress, httpPort: PORTS.http, tlsPort: PORTS.https, dir });
    // Pebble makes a new root at every start: the client trusts this one, and only this one.
    writeFileSync(join(dir, "pebble-root.pem"), pebble.root);
    await pebble.addA(HOST, [net.serverAddress]);

    writeFileSync(join(dir, "Caddyfile"), caddyfile());
    containerStart = Date.now();
    // biome-ignore format: one docker option per line
    const started = await docker([
      "run", "-d", "--name", CONTAINER, "--memory", "256m", "--pids-limit", "256",
      "-p", `0.0.0.0:${PORTS.http}:80`, "-p", `0.0.0.0:${PORTS.https}:443`,
      "--add-host", `pebble:${net.serverAddress}`, "--dns", net.serverAddress,
      "-v", `${join(dir, "Caddyfile")}:/etc/caddy/Caddyfile:ro`,
      "-v", `${rec.minicaRoot}:/etc/caddy/pebble.minica.pem:ro`,
      IMAGE,
    ]);
    if (started.code !== 0) throw new Error(`docker run ${IMAGE} failed (npm run setup builds the image): ${started.stderr}`);
  }, 120_000);

  afterAll(async () => {
    await docker(["rm", "-f", "-v", CONTAINER]);
    pebble?.stop();
    if (net) await destroyInternet(net);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("issues a certificate through HTTP-01 and serves HTTPS with it to a client on the internet", async () => {
    let last = "";
    // Bounded: at most 200 attempts 300 ms apart, each curl capped at 5 s. Issuance takes seconds.
    await waitFor("HTTPS with a Pebble certificate", 200, 300, async () => {
      const state = await docker(["inspect", "-f", "{{.State.Running}}", CONTAINER]);
      if (state.stdout.trim() !== "true") throw new Error(`Caddy exited:\n${(await docker(["logs", CONTAINER])).stderr}`);
      const r = await client("https", "/");
      last = r.stderr;
      return r.code === 0 && r.stdout === "hello";
    }).catch(async (e) => {
      const caddy = (await docker(["logs", CONTAINER])).stderr;
      throw new Error(`${e.message}; last curl: ${last}\nCaddy:\n${caddy}\nPebble:\n${pebble?.log()}`);
    });
    const firstOk = Date.now() - containerStart;

    const logs = await caddyLogs();
    const at = (msg: string) => logs.find((l) => l.msg === msg && l.identifier === HOST)?.ts as number | undefined;
    const obtaining = at("obtaining certificate");
    const obtained = at("certificate obtained successfully");
    expect(obtaining !== undefined && obtained !== undefined, "Caddy logged no issuance").toBe(true);
    const challenge = logs.find((l) => l.msg === "served key authentication" && l.identifier === HOST);
    // printed on every run: the measurement is part of what this proof is for
    console.log(
      `[public-edge-acme] serverAddress ${net.serverAddress}, client ${net.clientAddress}; ` +
        `issuance ${((obtained! - obtaining!) * 1000).toFixed(0)} ms (Caddy's log), ` +
        `container start to first HTTPS 200: ${firstOk} ms; HTTP-01 request came from ${String(challenge?.remote)}`,
    );
    expect(challenge?.challenge, "Caddy served no HTTP-01 key authorization").toBe("http-01");
    expect(logs.some((l) => l.challenge === "tls-alpn-01")).toBe(false);
    // Pebble really validated: its VA fetched the token from our name and port, then set the authz valid.
    const pebbleOut = pebble?.log() ?? "";
    expect(pebbleOut).toContain(`Attempting to validate w/ HTTP: http://${HOST}:${PORTS.http}/.well-known/acme-challenge/`);
    expect(pebbleOut).toMatch(/set VALID by completed challenge/);
  }, 120_000);

  it("serves HSTS over HTTPS, with a certificate that only Pebble's root verifies", async () => {
    const r = await client("https", "/", ["-D", "-", "-o", "/dev/null"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^HTTP\/2 200/m);
    expect(r.stdout).toMatch(/^strict-transport-security: max-age=31536000/im);
    const systemCAs = await client("https", "/", [], false);
    expect(systemCAs.code, "the system CAs must not verify a Pebble certificate").not.toBe(0);
  });

  it("redirects HTTP to HTTPS, except ACME challenge paths", async () => {
    const r = await client("http", "/a/b?c=1", ["-o", "/dev/null", "-w", "%{http_code} %{redirect_url}"]);
    expect(r.stdout).toBe(`308 https://${HOST}/a/b?c=1`);
    const token = await client("http", "/.well-known/acme-challenge/unknown", ["-o", "/dev/null", "-w", "%{http_code}"]);
    expect(token.stdout).toBe("404");
  });

  it("sees the client's own address (no NAT between the internet and the edge)", async () => {
    const r = await client("https", "/seen", ["-o", "/dev/null"]);
    expect(r.code, r.stderr).toBe(0);
    // the site's access log (`log`): the request's remote address as Caddy saw it
    type Req = { uri?: string; remote_ip?: string } | undefined;
    let seen: Req;
    await waitFor("the access log entry", 20, 250, async () => {
      seen = (await caddyLogs()).map((l) => l.request as Req).find((q) => q?.uri === "/seen");
      return seen !== undefined;
    });
    expect(seen?.remote_ip).toBe(net.clientAddress);
  });
});
