import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { nodesFlag } from "../../../src/cli/cluster-action.js";
import { buildComponents } from "../../../src/test-cluster/components.js";
import {
  buildCniConfig,
  buildContainerdConfig,
  buildKubeletConfig,
  buildKubeProxyConfig,
  buildRegistryHosts,
} from "../../../src/test-cluster/configs.js";
import { clusterLayout, type ClusterToolchain, NETWORK } from "../../../src/test-cluster/layout.js";
import { extraNodeSpecs } from "../../../src/test-cluster/node-join.js";
import { apiServerFor, clusterNodes, nodeCount, nodeLayout, nodeSpec } from "../../../src/test-cluster/nodes.js";
import { buildCertSpecs } from "../../../src/test-cluster/pki.js";
import { certManagerToolchain } from "./toolchain-fixture.js";

const layout = clusterLayout("/home/u/.platform");
const tc = {
  binDir: "/tc/bin",
  containerd: "/usr/bin/containerd",
  ctr: "/usr/bin/ctr",
  runc: "/usr/sbin/runc",
  cniBinDir: "/usr/lib/cni",
  pauseImage: { ref: "platform-local/pause:1", archive: "/tc/pause.tar" },
  certManager: certManagerToolchain,
} as ClusterToolchain;
const second = nodeSpec(2);
const l2 = nodeLayout(layout, second);

describe("test cluster nodes", () => {
  it("the first node is the host's, the others have a namespace, a pod range and a link of their own", () => {
    expect(nodeSpec(1)).toEqual({ index: 1, name: "platform", podCidr: "10.244.0.0/24", gateway: "10.244.0.1", ip: "127.0.0.1" });
    expect(second).toMatchObject({ name: "platform-2", podCidr: "10.244.1.0/24", gateway: "10.244.1.1", ip: "10.244.255.2" });
    expect(second.netns).toEqual({ name: "platform-node-2", hostVeth: "pk-node-2", hostIp: "10.244.255.1", nodeVeth: "eth0" });
    expect(nodeSpec(3)).toMatchObject({ podCidr: "10.244.2.0/24", ip: "10.244.255.6", netns: { hostIp: "10.244.255.5" } });
    // Every node's pod range and link lie inside the cluster's pod range (the API server's firewall rule admits it).
    for (const n of clusterNodes(4)) expect(n.ip === "127.0.0.1" || n.ip.startsWith("10.244.")).toBe(true);
    expect(NETWORK.podCidr).toBe("10.244.0.0/16");
  });

  it("a second node keeps its files, runtime and pods' logs apart from the first's", () => {
    expect(nodeLayout(layout, nodeSpec(1))).toBe(layout);
    expect(l2.dir).toBe("/home/u/.platform/cluster/nodes/platform-2");
    expect(l2.containerdSocket).toBe("/run/platform-k8s-2/containerd.sock");
    expect(l2.podLogs).toBe("/home/u/.platform/cluster/nodes/platform-2/pod-logs");
    expect(l2.pki).toBe(layout.pki);
    expect(buildContainerdConfig(l2, tc)).toContain('address = "/run/platform-k8s-2/containerd.sock"');
  });

  it("its kubelet serves on its link address, under a cgroup of its own, with its own identity", () => {
    const k = parse(buildKubeletConfig(l2, second));
    expect(k).toMatchObject({ address: "10.244.255.2", healthzBindAddress: "10.244.255.2", cgroupRoot: "/platform-node-2" });
    expect(k.podLogsDir).toBe(l2.podLogs);
    expect(k.tlsCertFile).toBe("/home/u/.platform/cluster/pki/kubelet-platform-2.crt");
    expect(parse(buildKubeletConfig(layout, nodeSpec(1))).cgroupRoot).toBeUndefined();
    const cert = buildCertSpecs(clusterNodes(2)).find((c) => c.name === "kubelet-platform-2");
    expect(cert).toMatchObject({ cn: "system:node:platform-2", org: "system:nodes", ips: ["10.244.255.2"] });
  });

  it("its pods, kube-proxy and registry pulls use its own range and reach the host at the first bridge", () => {
    const cni = JSON.parse(buildCniConfig(l2, second));
    expect(cni.plugins[0].ipam.ranges[0][0]).toEqual({ subnet: "10.244.1.0/24", gateway: "10.244.1.1" });
    const proxy = parse(buildKubeProxyConfig(l2, second));
    expect(proxy).toMatchObject({ hostnameOverride: "platform-2", healthzBindAddress: "10.244.255.2:10256" });
    expect(proxy.clientConnection.kubeconfig).toBe("/home/u/.platform/cluster/kubeconfig/kube-proxy-platform-2.yaml");
    expect(buildRegistryHosts(second)).toMatchObject({ dir: "127.0.0.1:5001" });
    expect(buildRegistryHosts(second).content).toContain('server = "http://10.244.0.1:5001"');
    expect(apiServerFor(second, 6443)).toBe("https://10.244.0.1:6443");
    expect(apiServerFor(nodeSpec(1), 6443)).toBe("https://127.0.0.1:6443");
  });

  it("its processes run in its namespace, named after it; the first node's keep their names", () => {
    const specs = extraNodeSpecs(layout, tc, clusterNodes(2));
    expect(specs.map((s) => s.name)).toEqual(["containerd-platform-2", "kubelet-platform-2", "kube-proxy-platform-2"]);
    for (const s of specs) expect(s.netns).toBe("platform-node-2");
    expect(specs[0]?.health).toEqual({ kind: "containerd", socket: "/run/platform-k8s-2/containerd.sock" });
    expect(specs[1]?.args).toContain("--node-ip=10.244.255.2");
    expect(buildComponents(layout, tc).some((s) => s.netns)).toBe(false);
  });

  it("the node count is kept for later ups; --nodes is checked", () => {
    const dir = mkdtempSync(join(tmpdir(), "nodes-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const l = { ...layout, dir };
    expect(nodeCount(l)).toBe(1);
    expect(nodeCount(l, 2)).toBe(2);
    expect(nodeCount(l)).toBe(2);
    expect(nodesFlag({})).toBeUndefined();
    expect(nodesFlag({ nodes: "2" })).toBe(2);
    for (const bad of ["0", "5", "two", "1.5"])
      expect(() => nodesFlag({ nodes: bad })).toThrow(/--nodes: .* is not a node count from 1 to 4/);
  });
});
