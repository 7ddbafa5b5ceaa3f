// Issue 28 item 1 end to end: on Kubernetes, public services come in through the cluster's own
// ingress controller, with certificates that controller got from a real ACME CA, and nothing
// of the path runs on this machine's Docker engine. Run alone:
//   source /root/.platform/env.sh && npx tsc -p tsconfig.json && npx vitest run test/integration/kubernetes-front-door.test.ts
//
// Topology (traffic only to 127.0.0.1 and to the veth pair this test makes, helpers/internet.ts):
//   127.0.0.1:10080, :10443  the test cluster's front door: Traefik (a component of `platform
//                            cluster up`), its entry points web and websecure, with an ACME
//                            resolver pointed at Pebble (`cluster up --acme-ca ...`)
//   serverAddress:14000      Pebble's directory (a throwaway CA signs its HTTPS: --acme-ca-root)
//   serverAddress:53         challtestsrv: every name answers 127.0.0.1, where Pebble validates
//                            HTTP-01 on port 10080 (Traefik's web entry point)
// The deploy's own DNS check asks challtestsrv (PLATFORM_DNS_SERVERS): the hosts point at the
// front door's address (127.0.0.1, as Traefik writes it into each Ingress's status).
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FRONT_DOOR } from "../../src/test-cluster/layout.js";
import { docker, type Pebble } from "./helpers/acme.js";
import { httpsRequest, ok, parseUrls } from "./helpers/cli.js";
import { copyExample, forgetProject, pulumiOnStack, requireToolchain } from "./helpers/env.js";
import { type FrontDoorCa, frontDoorHttpGet, frontDoorProject, startFrontDoorCa, stopFrontDoorCa } from "./helpers/front-door.js";
import { kubectl } from "./helpers/kubernetes.js";

const DOMAIN = "apps.test";
const { project, namespace, backend, work, dir, env, cli } = frontDoorProject("k8s-door");
const SHOP = `shop-${project}.${DOMAIN}`;
const ca: FrontDoorCa = {};
let pebble: Pebble | undefined;
let urls: Record<string, string> = {};
const deploy = () => cli("deploy", "--yes", "--project", project, "--target", "kubernetes");

const ingresses = () => kubectl("-n", namespace, "get", "ingress", "-o", "name", "--ignore-not-found").split("\n").filter(Boolean).sort();

describe("public services through the Kubernetes cluster's own ingress controller", () => {
  beforeAll(async () => {
    requireToolchain();
    const { net, pebble: started } = await startFrontDoorCa(ca, work);
    pebble = started;
    copyExample("fullstack", dir);
    const yml = join(dir, "platform.yml");
    writeFileSync(yml, readFileSync(yml, "utf8").replace("\n  web:\n", `\n  web:\n    domains: [${SHOP}]\n`));
    Object.assign(env, { PLATFORM_APPS_DOMAIN: DOMAIN, PLATFORM_DNS_SERVERS: `${net.serverAddress}:53` });
  }, 45 * 60_000);

  afterAll(async () => {
    await cli("destroy", "--yes", "--delete-data", "--project", project);
    await stopFrontDoorCa(ca);
    rmSync(work, { recursive: true, force: true });
    forgetProject(project);
  }, 300_000);

  it("deploys with an Ingress per public service, no forwarder on this machine, and certificates before the URLs", async () => {
    const r = ok(await deploy());
    urls = parseUrls(r.stdout);
    expect(r.stdout).not.toMatch(/no certificate yet/);
    const host = (u: string | undefined) => new URL(u as string).hostname;
    expect(urls.web).toBe(`https://${SHOP}:${FRONT_DOOR.httpsPort}`);
    expect(host(urls.api)).toMatch(new RegExp(`^${project}-api-[a-z]+-[a-z]+\\.${DOMAIN.replace(".", "\\.")}$`));
    expect(new URL(urls.api as string).port).toBe(String(FRONT_DOOR.httpsPort));
    expect(ingresses()).toEqual(["ingress.networking.k8s.io/api", "ingress.networking.k8s.io/web"]);
    const web = JSON.parse(kubectl("-n", namespace, "get", "ingress", "web", "-o", "json"));
    expect(web.spec.ingressClassName).toBe(FRONT_DOOR.ingressClass);
    expect(web.spec.rules.map((x: { host: string }) => x.host)).toContain(SHOP);
    expect(web.status.loadBalancer.ingress).toEqual([{ ip: FRONT_DOOR.address }]);
    const forwarders = await docker(["ps", "-aq", "--filter", `label=platform.project=${project}`]);
    expect(forwarders.stdout.trim()).toBe("");
  }, 1_800_000);

  it("serves both URLs and the custom domain over HTTPS with certificates from Pebble, trusting only Pebble's root", async () => {
    const root = pebble!.root;
    const status = await httpsRequest(`${urls.api}/api/status`, root);
    expect(status.status).toBe(200);
    expect(JSON.parse(status.body)).toMatchObject({ api: "ok", database: "ok" });
    for (const u of [urls.web as string, `https://${SHOP}:${FRONT_DOOR.httpsPort}`]) {
      const page = await httpsRequest(u, root);
      expect(page.status).toBe(200);
      expect(page.authorized).toBe(true);
    }
    // The platform's own URL of web serves beside its custom domain.
    const platformHosts = JSON.parse(kubectl("-n", namespace, "get", "ingress", "web", "-o", "json")).spec.rules.map(
      (x: { host: string }) => x.host,
    ) as string[];
    const own = platformHosts.find((h) => h !== SHOP) as string;
    expect((await httpsRequest(`https://${own}:${FRONT_DOOR.httpsPort}/`, root)).status).toBe(200);
    // The platform's local CA does not verify them: they are not the Docker edge's.
    const localCa = ok(await cli("ca")).stdout;
    await expect(httpsRequest(`${urls.api}/api/status`, localCa)).rejects.toThrow(/certificate/);
  });

  it("status and domains read the certificates the front door serves, and its DNS", async () => {
    const status = ok(await cli("status", "--project", project, "--json"));
    const certs = JSON.parse(status.stdout).certificates as { host: string; cert?: { issuer: string } }[];
    expect(certs.map((c) => c.host).sort()).toEqual(
      Object.values(urls)
        .map((u) => new URL(u).hostname)
        .sort(),
    );
    for (const c of certs) expect(c.cert?.issuer, c.host).toMatch(/Pebble/i);
    const domains = JSON.parse(ok(await cli("domains", "--project", project, "--json")).stdout);
    expect(domains.frontDoor).toBe(FRONT_DOOR.address);
    expect(domains.domains).toEqual([
      expect.objectContaining({
        domain: SHOP,
        service: "web",
        dns: expect.objectContaining({ pointsHere: true }),
        certificate: expect.anything(),
      }),
    ]);
    expect(domains.domains[0].certificate.issuer).toMatch(/Pebble/i);
  });

  it("plain HTTP on the front door's web entry point redirects to HTTPS", async () => {
    const host = new URL(urls.api as string).hostname;
    const r = await frontDoorHttpGet(host, "/api/status");
    expect([301, 302, 307, 308]).toContain(r.status);
    expect(r.location).toBe(`https://${host}:${FRONT_DOOR.httpsPort}/api/status`);
  });

  it("a plain pulumi preview of the stack shows no change; a redeploy keeps its Ingresses and certificates", async () => {
    expect(pulumiOnStack(project, backend, ["preview", "--expect-no-changes"])).toMatch(/\d+ unchanged/);
    const again = ok(await deploy());
    expect(parseUrls(again.stdout)).toEqual(urls);
    expect(again.stdout).not.toMatch(/no certificate yet/);
    expect(ingresses()).toHaveLength(2);
  }, 900_000);

  it("destroy removes the Ingresses", async () => {
    ok(await cli("destroy", "--yes", "--delete-data", "--project", project));
    expect(kubectl("get", "ingress", "-A", "-l", `platform.project=${project}`, "-o", "name").trim()).toBe("");
  }, 300_000);
});
