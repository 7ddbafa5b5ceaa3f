// Issue 28 item 3 end to end: a test cluster of two nodes (`platform cluster up --nodes 2`: a
// second kubelet with its own containerd in a network namespace of its own), examples/fullstack
// with the api at `replicas: 3` behind the cluster's front door (Traefik, certificates from
// Pebble), a rollout and a drain of a node under polling with no failed request, and the
// replicas on both nodes; then an autoscaler takes the api over and scales it up on both nodes
// under load and back down. Run alone:
//   source /root/.platform/env.sh && npx tsc -p tsconfig.json && npx vitest run test/integration/kubernetes-nodes.test.ts
//
// Traffic goes to 127.0.0.1 only (the front door's 10443, httpsRequest's fixed address), to the
// veth pair of helpers/internet.ts (Pebble) and to the second node's namespace, made by the
// cluster itself. The database is one pod: a drain of its node stops it while it moves, which
// no request can survive. So the first deploy runs with the second node cordoned (everything
// lands on the first), the rollout spreads the api over both, and the drain is of the second.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterLayout, FRONT_DOOR } from "../../src/test-cluster/layout.js";
import { nodeCount, nodeSpec } from "../../src/test-cluster/nodes.js";
import type { Pebble } from "./helpers/acme.js";
import { httpsRequest, ok, parseUrls, runCli } from "./helpers/cli.js";
import { copyExample, forgetProject, freshBackend, pulumiOnStack, requireToolchain, unique } from "./helpers/env.js";
import { type FrontDoorCa, startFrontDoorCa, stopFrontDoorCa } from "./helpers/front-door.js";
import { clusterUp, kubectl, kubectlAsync } from "./helpers/kubernetes.js";
import { describeLoad, LIGHT_LOAD, startLoad } from "./helpers/load.js";

const DOMAIN = "apps.test";
const FIRST = nodeSpec(1).name;
const SECOND = nodeSpec(2).name;
const project = unique("k8s-nodes");
const namespace = `${project}-preview`;
const backend = freshBackend();
const work = mkdtempSync(join(tmpdir(), "platform-k8s-nodes-"));
const dir = join(work, "fullstack");
const yml = join(dir, "platform.yml");
const ca: FrontDoorCa = {};
let pebble: Pebble | undefined;
let urls: Record<string, string> = {};
let env: Record<string, string> = {};
const cli = (...args: string[]) => runCli(args, { cwd: dir, env: { ...backend, ...env } });
const deploy = () => cli("deploy", "--yes", "--project", project, "--target", "kubernetes");

interface PodJson {
  metadata: { name: string; deletionTimestamp?: string };
  spec: { nodeName?: string };
  status: { conditions?: { type: string; status: string }[] };
}

/** The api's ready pods (terminating ones left out) and the node of each. */
function apiPods(): { name: string; node: string }[] {
  const pods = JSON.parse(kubectl("-n", namespace, "get", "pods", "-l", "app.kubernetes.io/name=api", "-o", "json")).items as PodJson[];
  return pods
    .filter((p) => !p.metadata.deletionTimestamp && p.status.conditions?.some((c) => c.type === "Ready" && c.status === "True"))
    .map((p) => ({ name: p.metadata.name, node: p.spec.nodeName ?? "" }));
}

const nodeOf = (pod: string) => kubectl("-n", namespace, "get", "pod", pod, "-o", "jsonpath={.spec.nodeName}").trim();

async function until(ms: number, what: string, check: () => boolean): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 2000));
  }
  throw new Error(`${what} not within ${ms / 1000}s:\n${kubectl("-n", namespace, "get", "pods", "-o", "wide")}`);
}

/** Polls both URLs through the front door while `during` runs; returns the load's failures. */
async function underLoad(what: string, during: () => Promise<unknown>): Promise<string[]> {
  const load = startLoad({
    ...LIGHT_LOAD,
    ca: pebble!.root,
    maxRequests: 40_000,
    maxMs: 600_000,
    mix: [
      { name: "GET api /api/status", url: `${urls.api}/api/status` },
      { name: "GET web /", url: `${urls.web}/` },
    ],
  });
  await new Promise((r) => setTimeout(r, 2000));
  await during();
  await new Promise((r) => setTimeout(r, 2000));
  const result = await load.stop();
  console.log([`[kubernetes-nodes] ${what}, under load:`, ...describeLoad(result)].join("\n"));
  expect(result.stoppedBy).toBe("stop");
  expect(result.sent).toBeGreaterThan(50);
  return result.failures.map((f) => `${f.protocol} ${f.request} (${f.phase}): ${f.what}`);
}

/** The node count the cluster had (as `up` keeps it for later ups): the shape this file leaves. */
let found = 1;

describe("a test cluster of two nodes: replicas on both, a rollout and a drain with no failed request", () => {
  beforeAll(async () => {
    requireToolchain();
    found = nodeCount(clusterLayout());
    await clusterUp(["--nodes", "2"]);
    pebble = (await startFrontDoorCa(ca, work)).pebble;
    copyExample("fullstack", dir);
    writeFileSync(yml, readFileSync(yml, "utf8").replace("  api:\n", "  api:\n    replicas: 3\n"));
    env = { PLATFORM_APPS_DOMAIN: DOMAIN, PLATFORM_DNS_SERVERS: `${ca.net!.serverAddress}:53` };
    kubectl("cordon", SECOND);
  }, 45 * 60_000);

  afterAll(async () => {
    await cli("destroy", "--yes", "--delete-data", "--project", project);
    await stopFrontDoorCa(ca);
    try {
      kubectl("uncordon", SECOND);
    } catch (e) {
      console.warn(`uncordon ${SECOND}: ${(e as Error).message}`);
    }
    // The cluster as it was found (one node unless `cluster up --nodes N` said otherwise).
    await clusterUp(["--nodes", String(found)]).catch((e) => console.warn(`cluster up --nodes ${found}: ${(e as Error).message}`));
    rmSync(work, { recursive: true, force: true });
    forgetProject(project);
  }, 600_000);

  it("the cluster has two Ready nodes, the second at its own address", () => {
    const nodes = JSON.parse(kubectl("get", "nodes", "-o", "json")).items as {
      metadata: { name: string };
      status: { addresses: { type: string; address: string }[]; conditions: { type: string; status: string }[] };
    }[];
    expect(nodes.map((n) => n.metadata.name).sort()).toEqual([FIRST, SECOND]);
    for (const n of nodes) expect(n.status.conditions.find((c) => c.type === "Ready")?.status).toBe("True");
    const second = nodes.find((n) => n.metadata.name === SECOND);
    expect(second?.status.addresses.find((a) => a.type === "InternalIP")?.address).toBe(nodeSpec(2).ip);
  });

  it("deploys the api at 3 replicas; both URLs answer through the front door with Pebble's certificates", async () => {
    urls = parseUrls(ok(await deploy()).stdout);
    expect(new URL(urls.api as string).port).toBe(String(FRONT_DOOR.httpsPort));
    expect(apiPods()).toHaveLength(3);
    expect(nodeOf("database-0")).toBe(FIRST);
    const status = await httpsRequest(`${urls.api}/api/status`, pebble!.root);
    expect(status.status).toBe(200);
    expect(JSON.parse(status.body)).toMatchObject({ api: "ok", database: "ok" });
    const page = await httpsRequest(urls.web as string, pebble!.root);
    expect(page.status).toBe(200);
    expect(page.authorized).toBe(true);
  }, 1_800_000);

  it("a rollout under load fails no request and spreads the replicas over both nodes", async () => {
    kubectl("uncordon", SECOND);
    writeFileSync(
      yml,
      readFileSync(yml, "utf8").replace(
        "      DATABASE_URL: ${database.url}\n",
        "      DATABASE_URL: ${database.url}\n      ROLLOUT: second\n",
      ),
    );
    const failures = await underLoad("the rollout", async () => ok(await deploy()));
    expect(failures).toEqual([]);
    await until(120_000, "3 ready api pods", () => apiPods().length === 3);
    expect(new Set(apiPods().map((p) => p.node))).toEqual(new Set([FIRST, SECOND]));
    // `platform status` shows each replica with its node (the old ReplicaSet's last pod may still be going).
    let status = "";
    let replicas: string[] = [];
    for (const end = Date.now() + 120_000; Date.now() < end; await new Promise((r) => setTimeout(r, 2000))) {
      status = ok(await cli("status", "--project", project)).stdout;
      replicas = status.split("\n").filter((l) => l.startsWith("replica: api "));
      if (replicas.length === 3) break;
    }
    expect(replicas, status).toHaveLength(3);
    for (const node of [FIRST, SECOND]) expect(replicas.some((l) => l.endsWith(`node ${node})`))).toBe(true);
    expect(status).toMatch(/^api\s+running\s+Deployment ready 3\/3\s/m);
    // Pods on the two nodes reach each other: the api on the second node answers with the database on the first.
    expect(nodeOf("database-0")).toBe(FIRST);
  }, 1_800_000);

  it("a drain of the second node under load fails no request; its replicas come back on the first", async () => {
    const failures = await underLoad("kubectl drain", () =>
      kubectlAsync(300_000, "drain", SECOND, "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=240s"),
    );
    expect(failures).toEqual([]);
    await until(120_000, "3 ready api pods on the first node", () => {
      const pods = apiPods();
      return pods.length === 3 && pods.every((p) => p.node === FIRST);
    });
    kubectl("uncordon", SECOND);
  }, 900_000);

  it("an autoscaler takes the api over from replicas: 3, scales it up on both nodes under CPU load, and back to 3", async () => {
    // replicas: 3 becomes scale: {min: 3, ...}. The handover is under polling, and the ready pods
    // are sampled through it: the count must never fall below min.
    writeFileSync(yml, readFileSync(yml, "utf8").replace("    replicas: 3\n", "    scale: {min: 3, max: 6, cpu: 5}\n"));
    let fewest = Number.POSITIVE_INFINITY;
    const failures = await underLoad("the handover to an autoscaler", async () => {
      const sampling = setInterval(() => {
        fewest = Math.min(fewest, apiPods().length);
      }, 1000);
      try {
        ok(await deploy());
      } finally {
        clearInterval(sampling);
      }
    });
    expect(failures).toEqual([]);
    console.log(`[kubernetes-nodes] handover to the autoscaler: at least ${fewest} ready api pods throughout`);
    expect(fewest).toBeGreaterThanOrEqual(3);
    expect(JSON.parse(kubectl("-n", namespace, "get", "hpa", "api", "-o", "json")).spec).toMatchObject({ minReplicas: 3, maxReplicas: 6 });
    // CPU load: more clients than the rollouts' polling, bounded in count and time.
    const t0 = Date.now();
    const scaleUp = await underLoad("CPU load for the autoscaler", () =>
      until(300_000, "more than 3 ready api pods", () => apiPods().length > 3),
    );
    expect(scaleUp).toEqual([]);
    const pods = apiPods();
    console.log(`[kubernetes-nodes] scaled up to ${pods.length} ready api pods in ${(Date.now() - t0) / 1000}s: ${JSON.stringify(pods)}`);
    expect(new Set(pods.map((p) => p.node))).toEqual(new Set([FIRST, SECOND]));
    // Load gone: back to min once the stabilization window has passed.
    await until(240_000, "the api back to 3 ready pods", () => {
      const d = JSON.parse(kubectl("-n", namespace, "get", "deployment", "api", "-o", "json"));
      return d.spec.replicas === 3 && apiPods().length === 3;
    });
    expect(ok(await cli("status", "--project", project)).stdout).toMatch(/^api\s+running\s+Deployment ready 3\/3\s/m);
  }, 1_200_000);

  it("back to replicas: 2 once the autoscaler has changed the count: the deploy takes the count back", async () => {
    // The autoscaler's controller owns spec.replicas now: Pulumi applies with force (workloads.ts).
    writeFileSync(yml, readFileSync(yml, "utf8").replace("    scale: {min: 3, max: 6, cpu: 5}\n", "    replicas: 2\n"));
    ok(await deploy());
    await until(180_000, "2 ready api pods", () => apiPods().length === 2);
    expect(kubectl("-n", namespace, "get", "hpa", "--ignore-not-found", "-o", "name").trim()).toBe("");
    expect(JSON.parse(kubectl("-n", namespace, "get", "deployment", "api", "-o", "json")).spec.replicas).toBe(2);
  }, 600_000);

  it("a plain pulumi preview shows no change", () => {
    expect(pulumiOnStack(project, backend, ["preview", "--expect-no-changes"])).toMatch(/\d+ unchanged/);
  }, 300_000);
});
