import { parse, parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { buildComponents, toFlags } from "../../../src/test-cluster/components.js";
import { certManagerToolchain } from "./toolchain-fixture.js";
import {
  buildCniConfig,
  buildContainerdConfig,
  buildKubeconfig,
  buildKubeletConfig,
  buildKubeProxyConfig,
  buildRegistryHosts,
  qualifiedRef,
} from "../../../src/test-cluster/configs.js";
import { buildCorednsManifests } from "../../../src/test-cluster/coredns.js";
import { clusterLayout, type ClusterToolchain, NETWORK } from "../../../src/test-cluster/layout.js";
import { nodeSpec } from "../../../src/test-cluster/nodes.js";
import { buildCertSpecs, buildOpensslConfig } from "../../../src/test-cluster/pki.js";

const layout = clusterLayout("/home/u/.platform");
const first = nodeSpec(1);
const tc: ClusterToolchain = {
  kubernetesVersion: "1.34.2",
  binDir: "/tc/kubernetes-v1.34.2/bin",
  pauseImage: { ref: "platform-local/pause:1.34.2", archive: "/tc/pause.tar" },
  corednsImage: { ref: "platform-local/coredns:1.12.4", archive: "/tc/coredns.tar" },
  registry: "/tc/registry/bin/registry",
  traefik: "/tc/traefik-v3.7.13/traefik",
  metricsServer: "/tc/metrics-server/bin/metrics-server",
  certManager: certManagerToolchain,
  pulumiKubernetesVersion: "4.25.0",
  containerd: "/usr/bin/containerd",
  ctr: "/usr/bin/ctr",
  runc: "/usr/sbin/runc",
  etcd: "/usr/bin/etcd",
  cniBinDir: "/usr/lib/cni",
};

describe("test cluster configuration", () => {
  it("containerd: its own socket and state, the trap fixes, the local pause image", () => {
    const toml = buildContainerdConfig(layout, tc);
    expect(toml).toContain('address = "/run/platform-k8s/containerd.sock"');
    expect(toml).not.toMatch(/"\/run\/containerd/);
    expect(toml).toContain("restrict_oom_score_adj = true");
    expect(toml).toContain("SystemdCgroup = false");
    expect(toml).toContain('sandbox_image = "docker.io/platform-local/pause:1.34.2"');
    expect(toml).toContain('conf_dir = "/home/u/.platform/cluster/config/cni"');
  });

  it("CNI: bridge with gateway and default route, firewall plugin last", () => {
    const cni = JSON.parse(buildCniConfig(layout, first));
    const [bridge, , last] = cni.plugins;
    expect(bridge).toMatchObject({ type: "bridge", isGateway: true, ipMasq: true });
    expect(bridge.ipam.ranges[0][0]).toEqual({ subnet: NETWORK.nodePodCidr, gateway: NETWORK.bridgeGateway });
    expect(bridge.ipam.routes).toEqual([{ dst: "0.0.0.0/0" }]);
    expect(bridge.ipam.dataDir).toBe(layout.cniIpamDir);
    expect(last).toEqual({ type: "firewall", backend: "iptables" });
  });

  it("kubelet: cgroup v1 with cgroupfs, loopback only, no image GC", () => {
    const k = parse(buildKubeletConfig(layout, first));
    expect(k).toMatchObject({
      cgroupDriver: "cgroupfs",
      failCgroupV1: false,
      address: "127.0.0.1",
      clusterDNS: [NETWORK.dnsServiceIp],
      imageGCHighThresholdPercent: 100,
    });
    expect(k.containerRuntimeEndpoint).toBe("unix:///run/platform-k8s/containerd.sock");
  });

  it("kube-proxy: iptables mode on loopback, conntrack left alone", () => {
    expect(parse(buildKubeProxyConfig(layout, first))).toMatchObject({
      mode: "iptables",
      clusterCIDR: NETWORK.podCidr,
      conntrack: { maxPerCore: 0 },
      hostnameOverride: NETWORK.nodeName,
    });
  });

  it("kubeconfig: inline certificates", () => {
    const k = parse(buildKubeconfig({ server: "https://127.0.0.1:6443", user: "admin", caPem: "CA", certPem: "CERT", keyPem: "KEY" }));
    expect(k.clusters[0].cluster["certificate-authority-data"]).toBe(Buffer.from("CA").toString("base64"));
    expect(k.users[0].user["client-key-data"]).toBe(Buffer.from("KEY").toString("base64"));
    expect(k["current-context"]).toBe("platform");
  });

  it("containerd pulls from the test registry over plain HTTP, through its hosts file", () => {
    expect(buildContainerdConfig(layout, tc)).toContain('config_path = "/home/u/.platform/cluster/config/registry-hosts"');
    const hosts = buildRegistryHosts(first);
    expect(hosts.dir).toBe("127.0.0.1:5001");
    expect(hosts.content).toContain('server = "http://127.0.0.1:5001"');
  });
  it.each([
    ["platform-local/pause:1", "docker.io/platform-local/pause:1"],
    ["busybox", "docker.io/library/busybox"],
    ["registry.k8s.io/pause:3.10", "registry.k8s.io/pause:3.10"],
    ["localhost/x:1", "localhost/x:1"],
  ])("image %s is known to containerd as %s", (ref, full) => {
    expect(qualifiedRef(ref)).toBe(full);
  });
});

describe("test cluster components", () => {
  const specs = buildComponents(layout, tc);
  it("start order: containerd and etcd, then the API server, then the rest", () => {
    expect(specs.map((s) => s.name)).toEqual([
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
    ]);
  });
  it("the registry listens on every address (the nodes in namespaces pull from it), its blobs under the cluster's directory", () => {
    expect(specs.find((s) => s.name === "registry")?.args).toEqual(["--listen=0.0.0.0:5001", "--dir=/home/u/.platform/cluster/registry"]);
  });
  it("the API server advertises the bridge gateway (loopback endpoints are refused) and allows nothing anonymous", () => {
    const args = specs.find((s) => s.name === "kube-apiserver")?.args ?? [];
    expect(args).toContain(`--advertise-address=${NETWORK.bridgeGateway}`);
    expect(args).toContain("--anonymous-auth=false");
  });
  it("flags are --flag=value (pflag reads booleans only so)", () => {
    expect(toFlags("--leader-elect", "false", "--name", "x")).toEqual(["--leader-elect=false", "--name=x"]);
    for (const s of specs) for (const a of s.args) expect(a).toMatch(/^--[a-z0-9.-]+=/);
  });
  it("the kubelet runs the cluster's binaries from the toolchain", () => {
    expect(specs.find((s) => s.name === "kubelet")?.command).toBe("/tc/kubernetes-v1.34.2/bin/kubelet");
  });
});

describe("test cluster PKI", () => {
  const specs = buildCertSpecs([first]);
  it("the kubelet's identity is what the Node authorizer expects", () => {
    expect(specs.find((s) => s.name === "kubelet")).toMatchObject({ cn: "system:node:platform", org: "system:nodes", usage: "both" });
  });
  it("the API server's certificate names loopback, the Service IP and the gateway", () => {
    const cnf = buildOpensslConfig(specs.find((s) => s.name === "apiserver")!);
    expect(cnf).toContain(
      `subjectAltName = IP:127.0.0.1,IP:${NETWORK.apiServiceIp},IP:${NETWORK.bridgeGateway},DNS:localhost,DNS:kubernetes`,
    );
    expect(cnf).toContain("extendedKeyUsage = serverAuth");
    expect(cnf).toContain("CA:FALSE");
  });
  it("a CA config is a CA", () => {
    expect(buildOpensslConfig({ ca: true, cn: "x" })).toContain("basicConstraints = critical,CA:TRUE");
  });
});

describe("CoreDNS manifests", () => {
  const docs = parseAllDocuments(buildCorednsManifests("platform-local/coredns:1.12.4")).map((d) => d.toJS());
  it("a Deployment of the imported image, never pulled, behind kube-dns at the cluster DNS address", () => {
    const dep = docs.find((d) => d.kind === "Deployment");
    expect(dep.spec.template.spec.containers[0]).toMatchObject({ image: "platform-local/coredns:1.12.4", imagePullPolicy: "Never" });
    expect(docs.find((d) => d.kind === "Service")).toMatchObject({
      metadata: { name: "kube-dns", namespace: "kube-system" },
      spec: { clusterIP: NETWORK.dnsServiceIp },
    });
    expect(docs.find((d) => d.kind === "ConfigMap").data.Corefile).toContain(`kubernetes ${NETWORK.clusterDomain}`);
  });
});
