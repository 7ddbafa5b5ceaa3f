// The test cluster's front door on its own, without the deploy pipeline: Traefik (a component
// of `platform cluster up`) serves a plain Deployment's Ingress on 127.0.0.1:10443 with a
// certificate it got from Pebble over HTTP-01 on 127.0.0.1:10080, where plain HTTP redirects
// to HTTPS but for ACME's challenges. Run alone:
//   PLATFORM_SKIP_SETUP=1 bash scripts/test.sh test/integration/kubernetes-front-door-cluster.test.ts
//
// Traffic goes only to 127.0.0.1 and to the veth pair helpers/internet.ts makes: Pebble's
// directory on serverAddress:14000 (a throwaway CA signs its HTTPS: --acme-ca-root),
// challtestsrv on serverAddress:53 answering 127.0.0.1 for every name.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type PeerCertificate } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importDockerImage } from "../../src/test-cluster/images.js";
import { clusterLayout, FRONT_DOOR, readClusterToolchain, type ClusterToolchain } from "../../src/test-cluster/layout.js";
import { type Pebble, sleep } from "./helpers/acme.js";
import { runCli } from "./helpers/cli.js";
import { requireToolchain, ROOT, unique } from "./helpers/env.js";
import { type FrontDoorCa, frontDoorHttpGet, startFrontDoorCa, stopFrontDoorCa } from "./helpers/front-door.js";
import { kubectl } from "./helpers/kubernetes.js";

const IMAGE = "platform-local/python:3.11";
const ns = unique("door-");
/** One Ingress names the class, one names none (the class is the cluster's default). */
const HOSTS = { classed: "hello.apps.test", unclassed: "plain.apps.test" } as const;
const work = mkdtempSync(join(tmpdir(), "platform-door-cluster-"));
const timings: Record<string, number> = {};
const ca: FrontDoorCa = {};
let pebble: Pebble | undefined;

function apply(...objects: object[]): void {
  const tc = readClusterToolchain() as ClusterToolchain;
  execFileSync(`${tc.binDir}/kubectl`, ["--kubeconfig", clusterLayout().adminKubeconfig, "apply", "-f", "-"], {
    input: objects.map((o) => JSON.stringify(o)).join("\n"),
    encoding: "utf8",
  });
}

function ingress(name: string, host: string, className?: string): object {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { name, namespace: ns },
    spec: {
      ...(className ? { ingressClassName: className } : {}),
      rules: [
        { host, http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "hello", port: { number: 80 } } } }] } },
      ],
    },
  };
}

interface Answer {
  authorized: boolean;
  error?: string;
  issuer: string;
  status: number;
  body: string;
}

/** GET / over TLS on the front door's websecure entry point with SNI `host`, trusting only `ca`. */
function httpsGet(host: string, ca: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: FRONT_DOOR.address, port: FRONT_DOOR.httpsPort, servername: host, ca, rejectUnauthorized: false }, () => {
      const cert: PeerCertificate = s.getPeerCertificate();
      const issuer = String(cert.issuer?.CN ?? "");
      const authorized = s.authorized;
      const error = s.authorizationError ? String(s.authorizationError) : undefined;
      s.write(`GET / HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      let raw = "";
      s.on("data", (d) => (raw += d));
      s.on("end", () => {
        const [head = "", body = ""] = raw.split("\r\n\r\n");
        const status = Number(head.split(" ")[1] ?? 0);
        resolve({ authorized, issuer, status, body, ...(error ? { error } : {}) });
      });
    });
    s.setTimeout(10_000, () => s.destroy(new Error("timeout")));
    s.on("error", reject);
  });
}

/** Polls until the front door serves `host` with a certificate under Pebble's root (Traefik orders it when the router appears). */
async function untilIssued(host: string, timeoutMs = 120_000): Promise<Answer> {
  let last = "";
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(1000)) {
    try {
      const a = await httpsGet(host, pebble!.root);
      if (a.authorized) return a;
      last = `issuer ${a.issuer}: ${a.error ?? "not authorized"}`;
    } catch (e) {
      last = (e as Error).message;
    }
  }
  throw new Error(`no certificate from Pebble for ${host} within ${timeoutMs / 1000} s; last: ${last}\n${pebble?.log().slice(-3000)}`);
}

describe("the test cluster's front door (Traefik) with certificates from an ACME CA", () => {
  beforeAll(async () => {
    requireToolchain();
    const t0 = Date.now();
    pebble = (await startFrontDoorCa(ca, work)).pebble;
    timings.upWithAcme = (Date.now() - t0) / 1000;
  }, 45 * 60_000);

  afterAll(async () => {
    try {
      kubectl("delete", "namespace", ns, "--wait=false", "--ignore-not-found");
    } catch (e) {
      console.warn(`delete namespace ${ns}: ${(e as Error).message}`);
    }
    await stopFrontDoorCa(ca);
    rmSync(work, { recursive: true, force: true });
    console.log(`front door timings (s): ${JSON.stringify(timings)}`);
  }, 300_000);

  it("serves a Deployment's Ingresses (class traefik, and no class) over HTTPS with Pebble's certificates, and redirects HTTP", async () => {
    const t0 = Date.now();
    const l = clusterLayout();
    const tc = readClusterToolchain() as ClusterToolchain;
    await importDockerImage(l, tc, IMAGE);
    const labels = { app: "hello" };
    apply(
      { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } },
      {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "hello", namespace: ns },
        spec: {
          replicas: 1,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              containers: [
                {
                  name: "hello",
                  image: IMAGE,
                  imagePullPolicy: "Never",
                  command: [
                    "sh",
                    "-c",
                    "mkdir -p /srv && echo hello-from-the-cluster > /srv/index.html && exec python3 -m http.server 8080 -d /srv",
                  ],
                  readinessProbe: { httpGet: { path: "/", port: 8080 }, periodSeconds: 1 },
                },
              ],
            },
          },
        },
      },
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "hello", namespace: ns },
        spec: { selector: labels, ports: [{ port: 80, targetPort: 8080 }] },
      },
      ingress("classed", HOSTS.classed, FRONT_DOOR.ingressClass),
      ingress("unclassed", HOSTS.unclassed),
    );
    kubectl("rollout", "status", "-n", ns, "deployment/hello", "--timeout=120s");
    timings.appReady = (Date.now() - t0) / 1000;

    // Traefik writes its address into each Ingress's status (what Pulumi's Ingress awaiter waits for).
    for (const name of ["classed", "unclassed"]) {
      kubectl("wait", "-n", ns, `ingress/${name}`, "--for=jsonpath={.status.loadBalancer.ingress[0].ip}=127.0.0.1", "--timeout=60s");
    }

    for (const host of Object.values(HOSTS)) {
      const t = Date.now();
      const a = await untilIssued(host);
      timings[`issued ${host}`] = (Date.now() - t) / 1000;
      expect(a.issuer).toMatch(/Pebble/);
      expect(a.status).toBe(200);
      expect(a.body).toContain("hello-from-the-cluster");
    }

    // Plain HTTP redirects to the websecure entry point...
    const r = await frontDoorHttpGet(HOSTS.classed, "/some/page?q=1");
    expect([301, 302, 307, 308]).toContain(r.status);
    expect(r.location).toBe(`https://${HOSTS.classed}:${FRONT_DOOR.httpsPort}/some/page?q=1`);
    // ...but ACME's HTTP-01 challenges stay on it (Traefik's own router, which outranks the
    // redirect): an unknown token is a 404 from Traefik's challenge handler, not a redirect.
    const challenge = await frontDoorHttpGet(HOSTS.classed, "/.well-known/acme-challenge/no-such-token");
    expect(challenge.status).toBe(404);
    expect(challenge.location).toBeUndefined();
    // The Ingress that names no class got the default one (the API server's DefaultIngressClass).
    expect(kubectl("get", "ingress", "unclassed", "-n", ns, "-o", "jsonpath={.spec.ingressClassName}")).toBe(FRONT_DOOR.ingressClass);
  }, 600_000);

  it("up --acme-off restarts Traefik alone, without its resolver; a plain up then finds everything running", async () => {
    const t0 = Date.now();
    const off = await runCli(["cluster", "up", "--json", "--acme-off"], { cwd: ROOT, env: {} });
    timings.upAcmeOff = (Date.now() - t0) / 1000;
    expect(off.code, off.stderr).toBe(0);
    expect(JSON.parse(off.stdout)).toMatchObject({
      alreadyRunning: false,
      started: ["traefik"],
      frontDoor: { http: "http://127.0.0.1:10080", https: "https://127.0.0.1:10443", acmeCa: null },
    });
    expect(off.stderr).toContain("restarting traefik with its new flags");
    const args = readFileSync(join(clusterLayout().pids, "traefik.args"), "utf8");
    expect(args).not.toContain("certificatesresolvers");
    // Without ACME, websecure serves Traefik's default certificate, and web serves plain HTTP.
    const a = await httpsGet(HOSTS.classed, pebble!.root);
    expect(a.authorized).toBe(false);
    expect(a.issuer).toMatch(/TRAEFIK DEFAULT CERT/);
    const plain = await frontDoorHttpGet(HOSTS.classed, "/");
    expect(plain.status).toBe(200);
    expect(plain.body).toContain("hello-from-the-cluster");
    const again = await runCli(["cluster", "up", "--json"], { cwd: ROOT, env: {} });
    expect(JSON.parse(again.stdout)).toMatchObject({ alreadyRunning: true });
  }, 300_000);
});
