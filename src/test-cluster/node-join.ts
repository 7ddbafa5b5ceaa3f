import { nodeComponents } from "./components.js";
import { registryHostOf } from "./configs.js";
import type { ComponentSpec } from "./component-spec.js";
import { waitFor } from "./exec.js";
import { cleanUpPods, killAllTasks } from "./host.js";
import { copyImages, importArchive, nodeImages } from "./images.js";
import { kubectl, readNode } from "./kubectl.js";
import type { ClusterLayout, ClusterToolchain } from "./layout.js";
import { ensureNodeNetwork, removeNodeNetwork } from "./node-network.js";
import { nodeLayout, type NodeSpec, nodeSpec } from "./nodes.js";
import { logTail, runningPid, stopComponent } from "./processes.js";

/**
 * Nodes after the first (nodes.ts): joined by `up --nodes N`, stopped by `down`, removed by an
 * `up` with fewer nodes (drained first, as a team would before taking a machine away).
 */
type Start = (specs: ComponentSpec[]) => Promise<string[]>;
type Progress = (line: string) => void;

/** The specs of nodes 2..: containerd, kubelet and kube-proxy each. */
export function extraNodeSpecs(l: ClusterLayout, tc: ClusterToolchain, nodes: readonly NodeSpec[]): ComponentSpec[] {
  return nodes.filter((n) => n.netns).flatMap((n) => Object.values(nodeComponents(l, tc, n)));
}

/**
 * Brings a node in: its network, containerd with the sandbox and DNS images (and the images
 * the cluster's pods run, so a pod moved there starts), its kubelet, registered, then
 * kube-proxy. Readiness is awaited with the rest of the cluster.
 */
export async function joinNode(
  l: ClusterLayout,
  tc: ClusterToolchain,
  node: NodeSpec,
  start: Start,
  progress: Progress,
): Promise<string[]> {
  const specs = nodeComponents(l, tc, node);
  const nl = nodeLayout(l, node);
  await ensureNodeNetwork(node);
  const started = await start([specs.containerd]);
  for (const image of nodeImages(tc)) {
    if (await importArchive(nl, tc, image)) progress(`imported ${image.ref} into ${node.name}`);
  }
  const { copied, failed } = await copyImages(nodeLayout(l, nodeSpec(1)), nl, tc, await imagesInUse(l, tc));
  if (copied.length) progress(`copied ${copied.length} image(s) the cluster's pods run into ${node.name}`);
  if (failed.length) progress(`could not copy ${failed.join(", ")} into ${node.name}: a pod of it started there fails to start`);
  started.push(...(await start([specs.kubelet])));
  await waitFor(`the node ${node.name} to register`, async () => ((await readNode(l, tc, node.name)).registered ? true : undefined), {
    timeoutMs: 120_000,
    onTimeout: () => logTail(l, specs.kubelet.name),
  });
  started.push(...(await start([specs.kubeProxy])));
  return started;
}

/** Every image a pod of the cluster names that no node could pull (imported, not from a registry). */
async function imagesInUse(l: ClusterLayout, tc: ClusterToolchain): Promise<string[]> {
  const r = await kubectl(l, tc, ["get", "pods", "-A", "-o", "jsonpath={.items[*].spec.containers[*].image}"], { allowFail: true });
  return [...new Set(r.stdout.split(/\s+/).filter((ref) => ref && !registryHostOf(ref)))];
}

/**
 * Stops a node: kube-proxy and the kubelet, every container of its containerd, containerd,
 * then what its pods left mounted. `forget`: the node leaves the cluster (drained before, its
 * Node object and network removed after); else it comes back with the next `up`.
 */
export async function stopNode(
  l: ClusterLayout,
  tc: ClusterToolchain,
  node: NodeSpec,
  o: { forget: boolean; progress: Progress },
): Promise<string[]> {
  const specs = nodeComponents(l, tc, node);
  const nl = nodeLayout(l, node);
  const running = Object.values(specs).some((s) => runningPid(l, s) !== undefined);
  if (o.forget && running) {
    const drained = await kubectl(
      l,
      tc,
      ["drain", node.name, "--ignore-daemonsets", "--delete-emptydir-data", "--force", "--timeout=120s"],
      { allowFail: true, timeoutMs: 150_000 },
    );
    o.progress(drained.code === 0 ? `drained ${node.name}` : `could not drain ${node.name} (${drained.stderr.trim().split("\n").pop()})`);
  }
  const stopped: string[] = [];
  for (const s of [specs.kubeProxy, specs.kubelet]) if (await stopComponent(l, s)) stopped.push(s.name);
  if (runningPid(l, specs.containerd) !== undefined) {
    const n = await killAllTasks(nl, tc);
    if (n) o.progress(`stopped ${n} pod containers of ${node.name}`);
  }
  if (await stopComponent(l, specs.containerd)) stopped.push(specs.containerd.name);
  if (running || stopped.length) await cleanUpPods(nl);
  if (o.forget) {
    await removeNodeNetwork(node);
    await kubectl(l, tc, ["delete", "node", node.name, "--ignore-not-found"], { allowFail: true });
  }
  for (const name of stopped) o.progress(`stopped ${name}`);
  return stopped;
}
