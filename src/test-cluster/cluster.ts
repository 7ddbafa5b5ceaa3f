import { spawn } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ExitCode, VisibleError } from "../errors.js";
import { buildComponents, type ComponentSpec } from "./components.js";
import { buildCorednsManifests } from "./coredns.js";
import {
  buildFrontDoorManifests,
  type FrontDoorAcme,
  type FrontDoorInfo,
  frontDoorAcme,
  toFrontDoorInfo,
  traefikDir,
} from "./front-door.js";
import { startMetricsServer } from "./metrics-api.js";
import { CERT_MANAGER, startCertManager } from "./cert-manager.js";
import { systemToolEnv, waitFor } from "./exec.js";
import { cleanUpPods, setHostRules, killAllTasks, killOrphanShims, prepareKernel, requireRoot } from "./host.js";
import { importArchive, nodeImages, nodeRuntimes } from "./images.js";
import {
  defaultServiceAccountExists,
  deploymentReady,
  describePods,
  kubectl,
  patchNodeAddress,
  podsRunningSince,
  readNode,
} from "./kubectl.js";
import { API_SERVER_URL, type ClusterLayout, clusterLayout, type ClusterToolchain, readClusterToolchain, toolchainFile } from "./layout.js";
import { writeKubeconfig, writeNodeFiles } from "./node-files.js";
import { extraNodeSpecs, joinNode, stopNode } from "./node-join.js";
import { removeNodeNetwork } from "./node-network.js";
import { allExtraNodes, clusterNodes, nodeComponentName, nodeCount, nodeLayout, type NodeSpec } from "./nodes.js";
import { writePki } from "./pki.js";
import { clusterStatus } from "./status.js";
import { argsChanged, commandOf, isHealthy, logTail, runningPid, startComponent, stopComponent } from "./processes.js";

/** The test cluster: `platform cluster up|down` (status in status.ts), also the Kubernetes tests' fixture. */
export type Progress = (line: string) => void;

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SETUP_SCRIPT = join(ROOT, "scripts", "setup", "kubernetes.sh");

/** The toolchain, built first by the set-up step when anything is missing (its output goes to stderr). */
export async function ensureClusterToolchain(progress: Progress = () => {}): Promise<ClusterToolchain> {
  const found = readClusterToolchain();
  if (found) return found;
  progress(`the Kubernetes toolchain is missing: running ${SETUP_SCRIPT} (cold: about 25 minutes on 2 cores; then cached)`);
  const code = await new Promise<number>((res) => {
    const child = spawn("bash", [SETUP_SCRIPT], { stdio: ["ignore", 2, 2], env: systemToolEnv() });
    child.on("error", () => res(-1));
    child.on("close", (c) => res(c ?? -1));
  });
  const tc = readClusterToolchain();
  if (code !== 0 || !tc) {
    throw new VisibleError(
      `the Kubernetes toolchain set-up failed (exit ${code}); ${toolchainFile()} is ${tc ? "there" : "missing or incomplete"}. Fix what it printed above, then run npm run setup -- --kubernetes`,
      { exitCode: ExitCode.environment },
    );
  }
  return tc;
}

/** PKI, kubeconfigs and component configuration: PKI once, the rest on every start. */
async function writeClusterFiles(l: ClusterLayout, tc: ClusterToolchain, nodes: readonly NodeSpec[]): Promise<void> {
  for (const d of [l.dir, l.kubeconfigs, l.etcdData]) mkdirSync(d, { recursive: true, mode: 0o700 });
  await writePki(l.pki, nodes);
  for (const user of ["admin", "controller-manager", "scheduler", "traefik", "metrics-server", "cert-manager"])
    writeKubeconfig(l, user, user, API_SERVER_URL);
  for (const node of nodes) writeNodeFiles(l, tc, node);
}

/** Starts the specs not running yet, then waits until each answers; a component that dies fails at once, with its log. */
async function startAndWait(
  l: ClusterLayout,
  tc: ClusterToolchain,
  specs: ComponentSpec[],
  progress: Progress,
  timeoutMs: number,
): Promise<string[]> {
  // A component running with other flags (the front door given an ACME CA) is started again.
  for (const s of specs.filter((x) => runningPid(l, x) !== undefined && argsChanged(l, x))) {
    progress(`restarting ${s.name} with its new flags`);
    await stopComponent(l, s);
  }
  const started = specs.filter((s) => runningPid(l, s) === undefined);
  // Gone means gone: while a process is between its exec's (nsenter's, then the component's),
  // its command line can read empty for a moment, which is not an exit.
  const pids = new Map(started.map((s) => [s.name, startComponent(l, s)]));
  const exited = (s: ComponentSpec) => {
    const pid = pids.get(s.name);
    return pid !== undefined ? commandOf(pid) === undefined : runningPid(l, s) === undefined;
  };
  await Promise.all(
    specs.map((s) =>
      waitFor(
        `${s.name} to answer`,
        async () => {
          if (exited(s)) throw new VisibleError(`${s.name} exited while starting`, { details: logTail(l, s.name) });
          return (await isHealthy(l, tc, s.health)) ? true : undefined;
        },
        { timeoutMs, onTimeout: () => logTail(l, s.name) },
      ),
    ),
  );
  for (const s of started) progress(`started ${s.name}`);
  return started.map((s) => s.name);
}

export interface UpResult {
  kubeconfig: string;
  alreadyRunning: boolean;
  started: string[];
  seconds: number;
  frontDoor: FrontDoorInfo;
  /** The nodes' names, the first one first. */
  nodes: string[];
}

/**
 * `acme`: the front door's ACME CA; unset keeps the one given last, null forgets it. `nodes`:
 * how many nodes (nodes.ts); unset keeps the count given last.
 */
export async function clusterUp(o: { progress?: Progress; acme?: FrontDoorAcme | null; nodes?: number } = {}): Promise<UpResult> {
  const progress = o.progress ?? (() => {});
  const t0 = Date.now();
  requireRoot();
  const tc = await ensureClusterToolchain(progress);
  const l = clusterLayout();
  mkdirSync(l.dir, { recursive: true, mode: 0o700 });
  const acme = frontDoorAcme(l, o.acme);
  const nodes = clusterNodes(nodeCount(l, o.nodes));
  const extra = nodes.slice(1);
  const specs = [...buildComponents(l, tc, acme), ...extraNodeSpecs(l, tc, extra)];
  const frontDoor = toFrontDoorInfo(acme);
  const byName = (...names: string[]) => specs.filter((s) => names.includes(s.name));
  const start = (s: ComponentSpec[], timeoutMs = 120_000) => startAndWait(l, tc, s, progress, timeoutMs);
  const leaving = allExtraNodes().filter((n) => n.index > nodes.length);
  const result = (alreadyRunning: boolean, started: string[]): UpResult => ({
    kubeconfig: l.adminKubeconfig,
    alreadyRunning,
    started,
    seconds: (Date.now() - t0) / 1000,
    frontDoor,
    nodes: nodes.map((n) => n.name),
  });
  if (
    specs.every((s) => runningPid(l, s) !== undefined && !argsChanged(l, s)) &&
    !extraNodeSpecs(l, tc, leaving).some((s) => runningPid(l, s) !== undefined) &&
    (await clusterStatus()).ready
  ) {
    // A node whose kubelet freed its disk (eviction at imagefs.available) may have lost the
    // pause image: containerd 1.6 does not pin it, and no pod starts without it. Put it back.
    for (const nl of nodeRuntimes(l))
      for (const image of nodeImages(tc))
        if (await importArchive(nl, tc, image)) progress(`imported ${image.ref} again (${nl.containerdSocket})`);
    return result(true, []);
  }
  await prepareKernel();
  await writeClusterFiles(l, tc, nodes);
  await setHostRules(true);

  const started = await startAndWait(l, tc, byName("containerd", "etcd", "registry"), progress, 60_000);
  // Before any kubelet asks for a sandbox: the pause image, CoreDNS's, cert-manager's solver.
  for (const image of nodeImages(tc)) {
    if (await importArchive(l, tc, image)) progress(`imported ${image.ref}`);
  }
  started.push(...(await startAndWait(l, tc, byName("kube-apiserver"), progress, 180_000)));
  started.push(...(await startAndWait(l, tc, byName("kube-controller-manager", "kube-scheduler", "kubelet"), progress, 120_000)));

  const node = await waitFor(
    "the node to register",
    async () => {
      const n = await readNode(l, tc);
      return n.registered ? n : undefined;
    },
    { timeoutMs: 120_000, onTimeout: () => logTail(l, "kubelet") },
  );
  if (node.internalIp !== "127.0.0.1") await patchNodeAddress(l, tc);
  // kube-proxy only once the node has its address: before, it waits 30 s for one, with no Service rules.
  started.push(...(await startAndWait(l, tc, byName("kube-proxy"), progress, 120_000)));
  // The other nodes before CoreDNS is awaited: its pod may be on one of them.
  for (const node of extra) started.push(...(await joinNode(l, tc, node, start, progress)));
  await kubectl(l, tc, ["apply", "-f", "-"], { input: buildCorednsManifests(tc.corednsImage.ref) });
  for (const node of nodes) {
    await waitFor(`the node ${node.name} to be Ready`, async () => ((await readNode(l, tc, node.name)).ready ? true : undefined), {
      timeoutMs: 180_000,
      onTimeout: () => logTail(l, nodeComponentName("kubelet", node)),
    });
  }
  await waitFor("the default ServiceAccount", async () => ((await defaultServiceAccountExists(l, tc)) ? true : undefined), {
    timeoutMs: 120_000,
    onTimeout: () => logTail(l, "kube-controller-manager"),
  });
  await waitForDns(l, tc, "CoreDNS to be ready", () => deploymentReady(l, tc, "kube-system", "coredns"));
  // After a restart the API still carries CoreDNS's ready state of before the stop (two CI runs
  // saw `status` say not ready just after `up`): wait for its containers to start again.
  if (started.includes("containerd")) {
    await waitForDns(l, tc, "CoreDNS to run again", () => podsRunningSince(l, tc, "kube-system", "k8s-app=kube-dns", t0));
  }
  started.push(...(await startMetricsServer(l, tc, (specs) => startAndWait(l, tc, specs, progress, 60_000), byName("metrics-server"))));
  // The front door last: its rights and IngressClass first, so its first sync sees them.
  await kubectl(l, tc, ["apply", "-f", "-"], { input: buildFrontDoorManifests() });
  // Without its directory, Traefik skips the ACME resolver ("unable to get ACME account").
  mkdirSync(traefikDir(l), { recursive: true, mode: 0o700 });
  started.push(...(await startAndWait(l, tc, byName("traefik"), progress, 60_000)));
  // cert-manager after the front door, whose class serves its solvers' Ingresses.
  started.push(...(await startCertManager(l, tc, (specs) => startAndWait(l, tc, specs, progress, 60_000), byName(CERT_MANAGER))));
  // Fewer nodes than before: the ones beyond the count are drained, stopped and removed.
  for (const node of leaving) await stopNode(l, tc, node, { forget: true, progress });
  await waitFor("the cluster to be ready", async () => ((await clusterStatus()).ready ? true : undefined), { timeoutMs: 120_000 });
  return result(false, started);
}

/** Waits for a CoreDNS condition; on timeout the error carries its pods and the namespace's last events. */
async function waitForDns(l: ClusterLayout, tc: ClusterToolchain, what: string, check: () => Promise<boolean>): Promise<void> {
  await waitFor(what, async () => ((await check()) ? true : undefined), { timeoutMs: 240_000 }).catch(async (e: unknown) => {
    const details = await describePods(l, tc, "kube-system", "k8s-app=kube-dns");
    throw e instanceof VisibleError ? new VisibleError(e.message, { details }) : e;
  });
}

export interface DownResult {
  stopped: string[];
  tasksKilled: number;
  mountsRemoved: number;
  purged: boolean;
}

/**
 * Stops everything by pid, the node and control plane first (a running kubelet would restart
 * what is killed), then every pod's processes through containerd, then containerd, then
 * cleans up what pods leave on the host. The cluster's state (etcd, images) stays for the next
 * `up`, which restarts the pods as after a reboot; `purge` removes it too.
 */
export async function clusterDown(o: { purge?: boolean; progress?: Progress } = {}): Promise<DownResult> {
  const progress = o.progress ?? (() => {});
  const l = clusterLayout();
  const tc = readClusterToolchain();
  const result: DownResult = { stopped: [], tasksKilled: 0, mountsRemoved: 0, purged: false };
  if (tc) {
    requireRoot();
    // The other nodes first, each with its own pods: they come back with the next `up`.
    for (const node of allExtraNodes()) result.stopped.push(...(await stopNode(l, tc, node, { forget: false, progress })));
    const specs = buildComponents(l, tc);
    const containerd = specs.find((s) => s.name === "containerd") as ComponentSpec;
    for (const s of specs.filter((x) => x !== containerd).reverse()) {
      const t = Date.now();
      if (await stopComponent(l, s)) {
        result.stopped.push(s.name);
        progress(`stopped ${s.name} (${((Date.now() - t) / 1000).toFixed(1)}s)`);
      }
    }
    // Pods' processes belong to containerd's shims: with containerd gone but shims left (a
    // crash), start it again just to stop them properly.
    if (runningPid(l, containerd) === undefined && killOrphanShims(l, { dryRun: true }) > 0) {
      await startAndWait(l, tc, [containerd], progress, 60_000).catch(() => undefined);
    }
    let t = Date.now();
    const secs = () => `${((Date.now() - t) / 1000).toFixed(1)}s`;
    if (runningPid(l, containerd) !== undefined) {
      result.tasksKilled = await killAllTasks(l, tc);
      if (result.tasksKilled) progress(`stopped ${result.tasksKilled} pod containers (${secs()})`);
    }
    t = Date.now();
    if (await stopComponent(l, containerd)) {
      result.stopped.push("containerd");
      progress(`stopped containerd (${secs()})`);
    }
    t = Date.now();
    result.mountsRemoved = (await cleanUpPods(l)).mounts;
    progress(`cleaned up ${result.mountsRemoved} mounts of pods (${secs()})`);
  }
  if (process.getuid?.() === 0) await setHostRules(false);
  if (o.purge) {
    for (const node of allExtraNodes()) {
      if (process.getuid?.() === 0) await removeNodeNetwork(node);
      rmSync(nodeLayout(l, node).runtime, { recursive: true, force: true });
    }
    rmSync(l.dir, { recursive: true, force: true });
    rmSync(l.runtime, { recursive: true, force: true });
    result.purged = true;
  }
  return result;
}
