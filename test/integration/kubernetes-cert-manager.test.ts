// Issue 28: on Kubernetes, `platform deploy --cluster-issuer NAME` gets every public host a
// certificate from cert-manager (the test cluster runs its controller, `platform cluster up`),
// which cert-manager obtained from a real ACME CA, and the cluster's ingress controller serves
// it. Run alone:
//   source /root/.platform/env.sh && PLATFORM_SKIP_SETUP=1 bash scripts/test.sh test/integration/kubernetes-cert-manager.test.ts
//
// Topology (traffic only to 127.0.0.1 and to the veth pair this test makes, helpers/internet.ts):
//   127.0.0.1:10080, :10443  the front door: Traefik, with no ACME resolver of its own (`cluster up
//                            --acme-off`): it serves the Secrets cert-manager writes
//   serverAddress:14000      Pebble's directory (a throwaway CA signs its HTTPS: the issuer's caBundle)
//   serverAddress:53         challtestsrv: every name answers 127.0.0.1, where Pebble validates
//                            HTTP-01 on port 10080: Traefik -> the solver pod cert-manager made
// cert-manager's controller (a host process) orders from Pebble, makes a solver pod, Service and
// Ingress per challenge, checks the token itself through the front door, and stores the
// certificate in the Secret each Ingress's `tls` entry names.
import { X509Certificate } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CERT_MANAGER_NAMESPACE } from "../../src/test-cluster/cert-manager.js";
import { FRONT_DOOR } from "../../src/test-cluster/layout.js";
import type { Pebble } from "./helpers/acme.js";
import { httpsRequest, ok, parseUrls, runCli } from "./helpers/cli.js";
import { copyExample, forgetProject, pulumiOnStack, requireToolchain } from "./helpers/env.js";
import { type FrontDoorCa, frontDoorProject, startFrontDoorPebble } from "./helpers/front-door.js";
import { destroyInternet } from "./helpers/internet.js";
import { clusterUp, kubectl } from "./helpers/kubernetes.js";

const DOMAIN = "apps.test";
const { project, namespace, backend, work, dir, env, cli } = frontDoorProject("k8s-cm");
const ISSUER = `pebble-${project}`;
const ACCOUNT_SECRET = `${ISSUER}-account`;
const ca: FrontDoorCa = {};
let pebble: Pebble | undefined;
let urls: Record<string, string> = {};
const deploy = () => cli("deploy", "--yes", "--project", project, "--target", "kubernetes", "--cluster-issuer", ISSUER);

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}
interface Certificate {
  metadata: { name: string; creationTimestamp: string; ownerReferences?: { kind: string; name: string }[] };
  spec: { secretName: string; dnsNames: string[]; issuerRef: { name: string; kind: string } };
  status?: { conditions?: Condition[] };
}
const json = <T>(...args: string[]): T => JSON.parse(kubectl(...args, "-o", "json")) as T;
const certificates = () => json<{ items: Certificate[] }>("-n", namespace, "get", "certificates.cert-manager.io").items;
const ready = (o: { status?: { conditions?: Condition[] } }) => o.status?.conditions?.find((c) => c.type === "Ready");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The leaf certificate the front door serves for `host`, verified against `root` alone (throws when it does not verify). */
function servedLeaf(host: string, root: string): Promise<X509Certificate> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: FRONT_DOOR.address, port: FRONT_DOOR.httpsPort, servername: host, ca: [root], timeout: 10_000 });
    s.once("secureConnect", () => {
      const raw = s.getPeerCertificate().raw;
      s.destroy();
      resolve(new X509Certificate(raw));
    });
    s.once("timeout", () => s.destroy(new Error(`TLS to the front door for ${host}: timeout`)));
    s.once("error", reject);
  });
}

/** The ACME ClusterIssuer: Pebble's directory, trusted through the CA of its own HTTPS; HTTP-01 behind the front door's class. */
function clusterIssuer(p: Pebble): object {
  return {
    apiVersion: "cert-manager.io/v1",
    kind: "ClusterIssuer",
    metadata: { name: ISSUER },
    spec: {
      acme: {
        server: p.directoryByAddress,
        email: "ops@apps.test",
        caBundle: Buffer.from(readFileSync(p.tlsCa)).toString("base64"),
        privateKeySecretRef: { name: ACCOUNT_SECRET },
        solvers: [{ http01: { ingress: { ingressClassName: FRONT_DOOR.ingressClass, serviceType: "ClusterIP" } } }],
      },
    },
  };
}

function deleteIssuer(): void {
  for (const args of [
    ["delete", "clusterissuer.cert-manager.io", ISSUER],
    ["-n", CERT_MANAGER_NAMESPACE, "delete", "secret", ACCOUNT_SECRET],
  ]) {
    try {
      kubectl(...args, "--ignore-not-found", "--wait=false");
    } catch (e) {
      console.warn(`kubectl ${args.join(" ")}: ${(e as Error).message}`);
    }
  }
}

describe("certificates from cert-manager on the Kubernetes cluster (--cluster-issuer)", () => {
  beforeAll(async () => {
    requireToolchain();
    ({ pebble } = await startFrontDoorPebble(ca, work));
    // Traefik without an ACME resolver of its own: whatever it serves comes from cert-manager's Secrets.
    await clusterUp(["--acme-off"]);
    const issuerFile = join(work, "issuer.json");
    writeFileSync(issuerFile, JSON.stringify(clusterIssuer(pebble)));
    kubectl("apply", "-f", issuerFile);
    copyExample("fullstack", dir);
    Object.assign(env, { PLATFORM_APPS_DOMAIN: DOMAIN, PLATFORM_DNS_SERVERS: `${ca.net!.serverAddress}:53` });
  }, 45 * 60_000);

  afterAll(async () => {
    await cli("destroy", "--yes", "--delete-data", "--project", project).catch(() => undefined);
    // A ClusterIssuer left behind would be every later deploy's issuer (the cluster's only one).
    deleteIssuer();
    pebble?.stop();
    if (ca.net) await destroyInternet(ca.net);
    rmSync(work, { recursive: true, force: true });
    forgetProject(project);
  }, 300_000);

  it("the cluster runs cert-manager, and the ClusterIssuer registers an ACME account with Pebble", async () => {
    const status = JSON.parse(ok(await runCli(["cluster", "status", "--json"], { cwd: work, env: {} })).stdout);
    expect(status.components.find((c: { name: string }) => c.name === "cert-manager")).toMatchObject({ running: true, healthy: true });
    const t0 = Date.now();
    let issuer: { status?: { conditions?: Condition[]; acme?: { uri?: string } } } = {};
    while (Date.now() - t0 < 60_000) {
      issuer = json("get", "clusterissuer.cert-manager.io", ISSUER);
      if (ready(issuer)?.status === "True") break;
      await sleep(1000);
    }
    expect(ready(issuer), JSON.stringify(issuer.status)).toMatchObject({ status: "True" });
    expect(issuer.status?.acme?.uri).toMatch(new RegExp(`^https://${ca.net!.serverAddress}:14000/`));
  }, 120_000);

  it("deploys with the annotation and a Secret per host; cert-manager gets each host its certificate before the URLs", async () => {
    const t0 = Date.now();
    const r = ok(await deploy());
    const deploySeconds = (Date.now() - t0) / 1000;
    urls = parseUrls(r.stdout);
    expect(Object.keys(urls).sort()).toEqual(["api", "web"]);
    expect(r.stdout).not.toMatch(/no certificate yet/);
    for (const svc of ["api", "web"]) {
      const ing = json<{ metadata: { annotations?: Record<string, string> }; spec: { rules: { host: string }[]; tls: unknown[] } }>(
        "-n",
        namespace,
        "get",
        "ingress",
        svc,
      );
      expect(ing.metadata.annotations?.["cert-manager.io/cluster-issuer"]).toBe(ISSUER);
      expect(ing.spec.tls).toEqual([{ hosts: [new URL(urls[svc] as string).hostname], secretName: `${svc}-tls` }]);
    }
    // The Ingress shim made one Certificate per tls entry, owned by its Ingress, from our issuer, Ready.
    const certs = certificates();
    expect(certs.map((c) => c.metadata.name).sort()).toEqual(["api-tls", "web-tls"]);
    for (const c of certs) {
      const svc = c.metadata.name.replace(/-tls$/, "");
      expect(c.spec.issuerRef).toMatchObject({ name: ISSUER, kind: "ClusterIssuer" });
      expect(c.spec.dnsNames).toEqual([new URL(urls[svc] as string).hostname]);
      expect(c.metadata.ownerReferences?.[0]).toMatchObject({ kind: "Ingress", name: svc });
      const cond = ready(c);
      expect(cond, JSON.stringify(c.status)).toMatchObject({ status: "True" });
      const issuance = (Date.parse(cond!.lastTransitionTime!) - Date.parse(c.metadata.creationTimestamp)) / 1000;
      console.log(`${c.metadata.name}: Certificate created -> Ready in ${issuance} s (deploy ${deploySeconds.toFixed(1)} s)`);
    }
    // Each went through an ACME order with Pebble that reached the valid state.
    const orders = json<{ items: { status?: { state?: string } }[] }>("-n", namespace, "get", "orders.acme.cert-manager.io").items;
    expect(orders.map((o) => o.status?.state)).toEqual(["valid", "valid"]);
  }, 1_800_000);

  it("the front door serves cert-manager's certificates, which chain to Pebble's root alone, and both URLs answer over HTTPS", async () => {
    const root = pebble!.root;
    for (const svc of ["api", "web"]) {
      const host = new URL(urls[svc] as string).hostname;
      const secret = json<{ data: Record<string, string> }>("-n", namespace, "get", "secret", `${svc}-tls`);
      const stored = new X509Certificate(Buffer.from(secret.data["tls.crt"] as string, "base64"));
      const served = await servedLeaf(host, root);
      expect(served.fingerprint256, host).toBe(stored.fingerprint256);
      expect(served.subjectAltName).toBe(`DNS:${host}`);
      expect(served.issuer).toMatch(/Pebble Intermediate/);
    }
    const status = await httpsRequest(`${urls.api}/api/status`, root);
    expect(status.status).toBe(200);
    expect(JSON.parse(status.body)).toMatchObject({ api: "ok", database: "ok" });
    const page = await httpsRequest(urls.web as string, root);
    expect(page.status).toBe(200);
    expect(page.authorized).toBe(true);
    // Not any CA would do: the platform's local CA does not verify them.
    const localCa = ok(await cli("ca")).stdout;
    await expect(httpsRequest(`${urls.api}/api/status`, localCa)).rejects.toThrow(/certificate/);
  });

  it("a plain pulumi preview of the stack shows no change (cert-manager's objects are not Pulumi's)", () => {
    expect(pulumiOnStack(project, backend, ["preview", "--expect-no-changes"])).toMatch(/\d+ unchanged/);
  }, 300_000);

  it("destroy removes the Ingresses, and with them their Certificates", async () => {
    ok(await cli("destroy", "--yes", "--delete-data", "--project", project));
    expect(kubectl("get", "ingress", "-A", "-l", `platform.project=${project}`, "-o", "name").trim()).toBe("");
    // The garbage collector removes the Certificates after their Ingresses (or the namespace goes).
    let left = "";
    for (let i = 0; i < 30; i++) {
      left = kubectl("-n", namespace, "get", "certificates.cert-manager.io", "-o", "name").trim();
      if (left === "") break;
      await sleep(1000);
    }
    expect(left).toBe("");
  }, 300_000);
});
