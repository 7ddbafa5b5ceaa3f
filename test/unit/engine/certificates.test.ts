import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer, type Server } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureCertificates, issuanceHint } from "../../../src/engine/certificates.js";
import { dockerRuntime } from "../../../src/runtime/docker-target.js";
import { kubernetesRuntime } from "../../../src/runtime/kubernetes-target.js";
import { selfSignedCert } from "../../fixtures/self-signed.js";

/** A real TLS server on 127.0.0.1 serving one certificate, made by openssl, as the edge would serve it. */
function serve(dir: string, issuerOrg: string, host: string, startsIn = "-1d"): Promise<Server> {
  const notBefore = startsIn === "-1d" ? [] : ["-not_before", startsIn];
  const { key, cert } = selfSignedCert(dir, issuerOrg, {
    subject: `/O=${issuerOrg}/CN=${host}`,
    san: `DNS:${host}`,
    days: 30,
    extra: notBefore,
  });
  const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (s) => s.end());
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const portOf = (s: Server) => (s.address() as AddressInfo).port;

describe("certificates before the URL is printed", () => {
  let dir: string;
  let local: Server;
  let acme: Server;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "platform-certs-"));
    local = await serve(dir, "Caddy Local Authority", "api-brave-otter.localhost");
    acme = await serve(dir, "Pebble Intermediate", "api.apps.example.test");
  });
  afterAll(() => {
    local.close();
    acme.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("accepts the local CA's certificate on the local edge, with its expiry", async () => {
    const [s] = await ensureCertificates(["api-brave-otter.localhost"], {
      port: portOf(local),
      public: false,
      timeoutMs: 2000,
      edgeLog: async () => "",
    });
    expect(s).toMatchObject({ host: "api-brave-otter.localhost", ok: true, issuer: "Caddy Local Authority" });
    expect(Date.parse(s!.expires!)).toBeGreaterThan(Date.now());
  });

  it("accepts the ACME CA's certificate on the public edge", async () => {
    const [s] = await ensureCertificates(["api.apps.example.test"], {
      port: portOf(acme),
      public: true,
      timeoutMs: 2000,
      edgeLog: async () => "",
    });
    expect(s).toMatchObject({ ok: true, issuer: "Pebble Intermediate" });
  });

  it("on the public edge, a local CA's certificate is no certificate: the edge's error and a hint are reported", async () => {
    const log = `{"level":"error","ts":1,"logger":"tls.obtain","msg":"could not get certificate from issuer","identifier":"api-brave-otter.localhost","error":"HTTP 400 urn:ietf:params:acme:error:dns - DNS problem: NXDOMAIN looking up A for api-brave-otter.localhost"}`;
    const started = Date.now();
    const [s] = await ensureCertificates(["api-brave-otter.localhost"], {
      port: portOf(local),
      public: true,
      timeoutMs: 600,
      edgeLog: async () => log,
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(s).toMatchObject({ ok: false });
    expect(s!.error).toContain("NXDOMAIN");
    expect(s!.hint).toMatch(/^DNS: api-brave-otter.localhost does not resolve to this server/);
  });

  it("a host the certificate does not name, or no TLS at all, is not ok", async () => {
    const [wrong] = await ensureCertificates(["other.apps.example.test"], {
      port: portOf(acme),
      public: true,
      timeoutMs: 300,
      edgeLog: async () => "",
    });
    expect(wrong).toMatchObject({ ok: false, error: expect.stringContaining("not one for other.apps.example.test") });
  });

  it("names what to do for the CA's common errors", () => {
    expect(issuanceHint("urn:ietf:params:acme:error:connection - Connection refused", "a.example.com")).toMatch(/port 80/);
    expect(issuanceHint("urn:ietf:params:acme:error:rateLimited: too many certificates", "a.example.com")).toMatch(/rate limit/);
    expect(issuanceHint("Timeout during connect (likely firewall problem)", "a.example.com")).toMatch(/port 80/);
    expect(issuanceHint("something else", "a.example.com")).toMatch(/edge's log/);
  });

  it("sends to the log of the one that serves the certificates: a cluster's front door is not the edge", () => {
    const cluster = kubernetesRuntime({ project: "shop", env: "preview", kubeconfig: "/k" }, true);
    const own = kubernetesRuntime({ project: "shop", env: "preview", kubeconfig: "/k" });
    const hint = (words: string | undefined) =>
      issuanceHint("the front door serves a certificate of TRAEFIK DEFAULT CERT", "a.example.com", words);
    expect(hint(cluster.words.frontDoorLog?.("traefik"))).toMatch(/^the front door's log says more: .*traefik\.log/);
    expect(hint(own.words.frontDoorLog?.("nginx"))).toMatch(/kubectl logs of its pods .*IngressClass is nginx/);
    expect(hint(own.words.frontDoorLog?.("nginx"))).not.toMatch(/docker/);
    expect(dockerRuntime("shop", "preview").words.frontDoorLog).toBeUndefined();
  });
});
