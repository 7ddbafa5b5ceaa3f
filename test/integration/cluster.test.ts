import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, delimiter } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterLayout, FRONT_DOOR, readClusterToolchain, type ClusterToolchain } from "../../src/test-cluster/layout.js";
import { importDockerImage, nodeRuntimes } from "../../src/test-cluster/images.js";
import { runCli } from "./helpers/cli.js";
import { noteClusterStarted } from "./helpers/cluster-marker.js";
import { freshBackend, requireToolchain, ROOT, unique } from "./helpers/env.js";
import { awaitKubernetesToolchain } from "./helpers/kubernetes-toolchain.js";

/**
 * The Kubernetes test cluster through the real CLI: `platform cluster up` (which runs the
 * set-up step when the toolchain is missing), DNS and Services between real pods, the Pulumi
 * Kubernetes provider built from its module, then status and down. Needs root, Docker (for
 * the test image) and the base images; anything missing fails, nothing is skipped. Any number
 * of nodes will do (`cluster up --nodes N` is kept for later ups): what is expected of each is
 * derived from the nodes the API server lists, and the shape found is the shape left.
 */
const TEST_IMAGE = "platform-local/python:3.11";
const l = clusterLayout();
const timings: Record<string, number> = {};
let tc: ClusterToolchain;
/** The nodes the cluster had when the test found it, the host's own first. */
let shape: string[] = [];

/**
 * What `status` lists: the host's node (its containerd, kubelet and kube-proxy keep their plain
 * names) with the control plane and the cluster's services, then each further node's three,
 * named after it.
 */
const FIRST_NODE_AND_SERVICES = [
  "containerd",
  "etcd",
  "kube-apiserver",
  "kube-controller-manager",
  "kube-scheduler",
  "kubelet",
  "kube-proxy",
  "registry",
  "metrics-server",
  "traefik",
  "cert-manager",
];
const PER_NODE = ["containerd", "kubelet", "kube-proxy"];
const ofNode = (base: string, node: string) => `${base}-${node}`;
const expectedComponents = ([, ...others]: string[]) => [
  ...FIRST_NODE_AND_SERVICES,
  ...others.flatMap((n) => PER_NODE.map((c) => ofNode(c, n))),
];
/** What `down` stops: each further node first (kube-proxy, kubelet, containerd), then the rest in reverse. */
const expectedStopped = ([, ...others]: string[]) => [
  ...others.flatMap((n) => [...PER_NODE].reverse().map((c) => ofNode(c, n))),
  ...FIRST_NODE_AND_SERVICES.filter((c) => c !== "containerd").reverse(),
  "containerd",
];

function kubectl(...args: string[]): string {
  return execFileSync(`${tc.binDir}/kubectl`, ["--kubeconfig", l.adminKubeconfig, ...args], {
    encoding: "utf8",
    timeout: 180_000,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** The nodes the API server lists, sorted: the host's own (`platform`) first, then `platform-2`, ... */
function nodeNames(): string[] {
  return kubectl("get", "nodes", "-o", "jsonpath={.items[*].metadata.name}").split(/\s+/).filter(Boolean).sort();
}

function apply(...objects: object[]): void {
  execFileSync(`${tc.binDir}/kubectl`, ["--kubeconfig", l.adminKubeconfig, "apply", "-f", "-"], {
    input: objects.map((o) => JSON.stringify(o)).join("\n"),
    encoding: "utf8",
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface PodState {
  name: string;
  phase: string;
  ready: boolean;
  started: string[];
}

/**
 * The pods with `selector` in `namespace`, but those being deleted: phase, Ready, and when each
 * container last started ("not running" if it is not).
 */
function podStates(namespace: string, selector: string): PodState[] {
  type Pod = {
    metadata: { name: string; deletionTimestamp?: string };
    status?: {
      phase?: string;
      conditions?: { type: string; status: string }[];
      containerStatuses?: { state?: { running?: { startedAt?: string } } }[];
    };
  };
  const list = JSON.parse(kubectl("get", "pods", "-n", namespace, "-l", selector, "-o", "json")) as { items: Pod[] };
  return list.items
    .filter((p) => !p.metadata.deletionTimestamp)
    .map((p) => ({
      name: p.metadata.name,
      phase: p.status?.phase ?? "Unknown",
      ready: p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false,
      started: (p.status?.containerStatuses ?? []).map((c) => c.state?.running?.startedAt ?? "not running"),
    }));
}

/**
 * Waits until the pods with `selector` run again after a restart of the cluster: at least one,
 * each Running and Ready with every container started at or after `sinceMs` (a status left
 * from before the stop does not count). Fails with what kubectl last said.
 */
async function expectPodsBack(namespace: string, selector: string, sinceMs: number, timeoutMs = 180_000): Promise<PodState[]> {
  const back = (p: PodState) =>
    p.phase === "Running" && p.ready && p.started.length > 0 && p.started.every((t) => Date.parse(t) >= sinceMs);
  let last = "";
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(2000)) {
    try {
      const pods = podStates(namespace, selector);
      if (pods.length > 0 && pods.every(back)) return pods;
      last = JSON.stringify(pods);
    } catch (e) {
      last = (e as Error).message;
    }
  }
  let described: string;
  try {
    described = kubectl("describe", "pods", "-n", namespace, "-l", selector);
  } catch (e) {
    described = (e as Error).message;
  }
  throw new Error(
    `the pods ${selector} in ${namespace} did not run again within ${timeoutMs / 1000} s (containers started since ${new Date(sinceMs).toISOString()}); last seen: ${last}\n${described}`,
  );
}

async function cli(...args: string[]) {
  const r = await runCli(["cluster", ...args], { cwd: ROOT, env: {} });
  if (r.code !== 0 && !(args[0] === "status"))
    throw new Error(`platform cluster ${args.join(" ")} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r;
}

describe("the Kubernetes test cluster", () => {
  const ns = unique("t-");

  beforeAll(async () => {
    requireToolchain();
    execFileSync("docker", ["image", "inspect", TEST_IMAGE], { stdio: "ignore" });
    await awaitKubernetesToolchain();
    const r = await cli("up", "--json");
    noteClusterStarted(r.stdout);
    timings.up = r.seconds;
    const again = await cli("up", "--json");
    timings.upAgain = again.seconds;
    expect(JSON.parse(again.stdout)).toMatchObject({ alreadyRunning: true });
    tc = readClusterToolchain() as ClusterToolchain;
    expect(tc, "the set-up step wrote kubernetes.json").toBeDefined();
    shape = nodeNames();
    expect(shape, "the nodes the API server lists against those `up` started").toEqual(JSON.parse(r.stdout).nodes);
    console.log(`the cluster as found: ${shape.length} node(s), ${shape.join(", ")}`);
  }, 60 * 60_000);

  afterAll(async () => {
    console.log(`cluster timings (s): ${JSON.stringify(timings)}`);
  });

  it("up: the node is Ready at 127.0.0.1, CoreDNS ready, and status says so", async () => {
    const r = await cli("status", "--json");
    const s = JSON.parse(r.stdout);
    expect(r.code).toBe(0);
    expect(s).toMatchObject({ ready: true, node: { name: "platform", ready: true, internalIp: "127.0.0.1" }, dns: { ready: true } });
    expect(s.nodes.map((n: { name: string; ready: boolean }) => `${n.name}:${n.ready}`)).toEqual(shape.map((n) => `${n}:true`));
    expect(s.components.map((c: { name: string; healthy: boolean }) => `${c.name}:${c.healthy}`)).toEqual(
      expectedComponents(shape).map((n) => `${n}:true`),
    );
    // The front door: Traefik's IngressClass, the cluster's default.
    const cls = JSON.parse(kubectl("get", "ingressclass", FRONT_DOOR.ingressClass, "-o", "json"));
    expect(cls.spec.controller).toBe("traefik.io/ingress-controller");
    expect(cls.metadata.annotations["ingressclass.kubernetes.io/is-default-class"]).toBe("true");
    // cert-manager: its CRDs established (issuers are the user's to make).
    for (const crd of ["certificates.cert-manager.io", "clusterissuers.cert-manager.io", "challenges.acme.cert-manager.io"])
      expect(kubectl("get", "crd", crd, "-o", "jsonpath={.status.conditions[?(@.type=='Established')].status}"), crd).toBe("True");
    expect(kubectl("version", "-o", "json")).toContain('"gitVersion": "v1.34.2"');
  }, 60_000);

  it("a pod resolves a Service name through CoreDNS and reaches another pod through its ClusterIP", async () => {
    const t0 = Date.now();
    // Into every node's containerd, as the product places the images it deploys (ClusterImage):
    // with imagePullPolicy Never, a pod scheduled on a node without the image never starts.
    const runtimes = nodeRuntimes(l);
    expect(runtimes, "a containerd per node").toHaveLength(shape.length);
    for (const node of runtimes) await importDockerImage(node, tc, TEST_IMAGE);
    timings.importImage = (Date.now() - t0) / 1000;
    const pod = (name: string, labels: object, command: string[], restartPolicy: string) => ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name, namespace: ns, labels },
      spec: { restartPolicy, containers: [{ name, image: TEST_IMAGE, imagePullPolicy: "Never", command }] },
    });
    const manifests = [
      { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } },
      pod(
        "web",
        { app: "web" },
        ["sh", "-c", "mkdir -p /srv && echo hello-from-web > /srv/index.html && exec python3 -m http.server 8080 -d /srv"],
        "Always",
      ),
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "web", namespace: ns },
        spec: { selector: { app: "web" }, ports: [{ port: 80, targetPort: 8080 }] },
      },
    ];
    apply(...manifests);
    kubectl("wait", "-n", ns, "--for=condition=Ready", "pod/web", "--timeout=120s");
    const clusterIp = kubectl("get", "service", "web", "-n", ns, "-o", "jsonpath={.spec.clusterIP}");
    // kube-proxy programs a new Service's rules on its next sync, which on a busy machine can
    // come seconds after the pod is Ready: the client tries, like any client would, up to
    // MAX_ATTEMPTS times (1 s apart) and for at most 90 s, whichever ends first, and says how
    // many attempts it took (each failure printed, as evidence), so that slowness shows. An
    // attempt before the rules exist is refused at once (the host's REJECT rule), so attempts
    // come about 1 s apart: 40 covers kube-proxy's full resync (iptables syncPeriod, 30 s).
    const MAX_ATTEMPTS = 40;
    const script = [
      "import socket, time, urllib.request",
      `print("resolved", socket.gethostbyname("web.${ns}.svc.cluster.local"))`,
      `deadline, attempt, max_attempts = time.time() + 90, 0, ${MAX_ATTEMPTS}`,
      "while True:",
      "    attempt += 1",
      "    try:",
      `        print("body", urllib.request.urlopen("http://web/", timeout=5).read().decode().strip(), "attempts", attempt); break`,
      "    except OSError as e:",
      "        print('attempt', attempt, 'failed:', e, flush=True)",
      "        if attempt >= max_attempts or time.time() > deadline:",
      "            print('gave up after', attempt, 'attempts', flush=True)",
      "            raise",
      "        time.sleep(1)",
    ].join("\n");
    apply(pod("client", {}, ["python3", "-c", script], "Never"));
    try {
      kubectl("wait", "-n", ns, "--for=jsonpath={.status.phase}=Succeeded", "pod/client", "--timeout=120s");
    } catch (e) {
      // What the client saw, and where the Service's endpoints were: the failure's evidence.
      const evidence = ["logs client", "get pods -o wide", "get endpointslices -o wide", "describe pod client"].map((c) => {
        try {
          return `$ kubectl ${c}\n${kubectl("-n", ns, ...c.split(" "))}`;
        } catch (err) {
          return `$ kubectl ${c}\n${(err as Error).message}`;
        }
      });
      throw new Error(`${(e as Error).message}\n${evidence.join("\n")}`);
    }
    const logs = kubectl("logs", "-n", ns, "client");
    expect(logs).toContain(`resolved ${clusterIp}`);
    expect(logs).toContain("body hello-from-web");
    timings.serviceAttempts = Number(/^body .* attempts (\d+)$/m.exec(logs)?.[1]);
    console.log(`pod -> Service: reached in ${timings.serviceAttempts} attempt(s) (at most ${MAX_ATTEMPTS})`);
    if (timings.serviceAttempts > 1) console.log(`the client's attempts:\n${logs}`);
    expect(timings.serviceAttempts).toBeGreaterThanOrEqual(1);
    expect(timings.serviceAttempts).toBeLessThanOrEqual(MAX_ATTEMPTS);
    timings.dnsAndService = (Date.now() - t0) / 1000;
  }, 300_000);

  it("the Pulumi Kubernetes provider 4.25.0 creates, updates and deletes a ConfigMap and a Deployment", async () => {
    const t0 = Date.now();
    const { pulumi } = requireToolchain();
    const { LocalWorkspace, PulumiCommand } = await import("@pulumi/pulumi/automation/index.js");
    const k8s = await import("@pulumi/kubernetes");
    const backend = freshBackend();
    const kubeconfig = readFileSync(l.adminKubeconfig, "utf8");
    const program = (greeting: string) => async () => {
      const provider = new k8s.Provider("test-cluster", { kubeconfig, namespace: ns });
      const cm = new k8s.core.v1.ConfigMap("greeting", { metadata: { name: "greeting" }, data: { greeting } }, { provider });
      const labels = { app: "pause" };
      const dep = new k8s.apps.v1.Deployment(
        "pause",
        {
          metadata: { name: "pause" },
          spec: {
            replicas: 1,
            selector: { matchLabels: labels },
            template: {
              metadata: { labels, annotations: { greeting } },
              spec: { containers: [{ name: "pause", image: tc.pauseImage.ref, imagePullPolicy: "Never" }] },
            },
          },
        },
        { provider, dependsOn: [cm] },
      );
      return { configMap: cm.metadata.name, readyReplicas: dep.status.readyReplicas };
    };
    const stack = await LocalWorkspace.createOrSelectStack(
      { projectName: "platform-cluster-test", stackName: ns, program: program("hello") },
      {
        pulumiCommand: await PulumiCommand.get({ root: dirname(dirname(pulumi)) }),
        envVars: {
          PATH: [dirname(pulumi), process.env.PATH].join(delimiter),
          PULUMI_BACKEND_URL: backend.PLATFORM_BACKEND_URL as string,
          PULUMI_CONFIG_PASSPHRASE: backend.PLATFORM_PASSPHRASE as string,
          PULUMI_SKIP_UPDATE_CHECK: "true",
          // The plugin must be the one the set-up installed: nothing may be downloaded.
          PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
        },
      },
    );
    const up = await stack.up();
    expect(up.summary.result).toBe("succeeded");
    expect(up.outputs.readyReplicas?.value).toBe(1);
    expect(kubectl("get", "configmap", "greeting", "-n", ns, "-o", "jsonpath={.data.greeting}")).toBe("hello");
    timings.pulumiUp = (Date.now() - t0) / 1000;

    const t1 = Date.now();
    const noop = await stack.up();
    expect(noop.summary.resourceChanges).not.toHaveProperty("update");
    timings.pulumiNoopUp = (Date.now() - t1) / 1000;

    stack.workspace.program = program("bonjour");
    const changed = await stack.up();
    expect(changed.summary.resourceChanges?.update).toBeGreaterThanOrEqual(1);
    expect(kubectl("get", "configmap", "greeting", "-n", ns, "-o", "jsonpath={.data.greeting}")).toBe("bonjour");

    await stack.destroy();
    expect(kubectl("get", "configmap", "-n", ns, "-o", "name")).not.toContain("greeting");
    await stack.workspace.removeStack(ns);
  }, 300_000);

  it("down stops everything; a later up brings the cluster and its pods back; down again", async () => {
    kubectl("delete", "namespace", ns, "--wait=false");
    // A workload of the test's own, Ready before the stop, to see it run again after the up.
    const kept = `${ns}-kept`;
    const labels = { app: "kept" };
    apply(
      { apiVersion: "v1", kind: "Namespace", metadata: { name: kept } },
      {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "kept", namespace: kept },
        spec: {
          replicas: 1,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name: "pause", image: tc.pauseImage.ref, imagePullPolicy: "Never" }] } },
        },
      },
    );
    kubectl("rollout", "status", "-n", kept, "deployment/kept", "--timeout=120s");
    expect(podStates(kept, "app=kept").map((p) => `${p.phase}:${p.ready}`)).toEqual(["Running:true"]);

    let r = await cli("down", "--json");
    timings.down = r.seconds;
    // Whole seconds, as Kubernetes gives container start times: every start after this is a new one.
    const stoppedAt = Math.floor(Date.now() / 1000) * 1000;
    const everything = expectedStopped(shape);
    expect(JSON.parse(r.stdout).stopped).toEqual(everything);
    r = await cli("status", "--json");
    expect(r.code).toBe(1);
    // Every component listed, none running (an empty list would pass a bare `every`).
    expect(JSON.parse(r.stdout).components.map((c: { name: string; running: boolean }) => `${c.name}:${c.running}`)).toEqual(
      expectedComponents(shape).map((n) => `${n}:false`),
    );

    // A plain `up` brings back the shape found (the node count is kept): every node, Ready.
    r = await cli("up", "--json");
    noteClusterStarted(r.stdout);
    timings.upWarm = r.seconds;
    expect(JSON.parse(r.stdout)).toMatchObject({ alreadyRunning: false, nodes: shape });
    const status = (await cli("status", "--json")).stdout;
    expect(JSON.parse(status).ready, status).toBe(true);
    expect(nodeNames()).toEqual(shape);
    expect(JSON.parse(status).nodes.map((n: { name: string; ready: boolean }) => `${n.name}:${n.ready}`)).toEqual(
      shape.map((n) => `${n}:true`),
    );
    // The pods really run again, started after the stop: CoreDNS's and the test's own.
    const t1 = Date.now();
    const dns = await expectPodsBack("kube-system", "k8s-app=kube-dns", stoppedAt);
    const own = await expectPodsBack(kept, "app=kept", stoppedAt);
    timings.podsBackAfterUp = (Date.now() - t1) / 1000;
    console.log(`pods back after up: ${[...dns, ...own].map((p) => `${p.name} started ${p.started.join(", ")}`).join("; ")}`);
    kubectl("delete", "namespace", kept, "--wait=false");

    r = await cli("down", "--json");
    timings.downAgain = r.seconds;
    expect(JSON.parse(r.stdout).stopped).toEqual(everything);
  }, 900_000);
});
