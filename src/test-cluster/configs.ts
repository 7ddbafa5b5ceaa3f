import { join } from "node:path";
import { stringify } from "yaml";
import { type ClusterLayout, type ClusterToolchain, NETWORK, PORTS, TEST_REGISTRY } from "./layout.js";
import { nodeCgroupRoot } from "./node-network.js";
import { nodeComponentName, type NodeSpec } from "./nodes.js";

/**
 * The configuration files of the test cluster's components: pure functions of the layout and
 * toolchain, written on every `up` so they always match this code.
 */

/** A kubeconfig with its certificates inline, so the admin one can be copied anywhere. */
export function buildKubeconfig(o: { server: string; user: string; caPem: string; certPem: string; keyPem: string }): string {
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "platform", cluster: { server: o.server, "certificate-authority-data": b64(o.caPem) } }],
    users: [{ name: o.user, user: { "client-certificate-data": b64(o.certPem), "client-key-data": b64(o.keyPem) } }],
    contexts: [{ name: "platform", context: { cluster: "platform", user: o.user } }],
    "current-context": "platform",
  });
}

/**
 * containerd for the cluster alone: its own root, state and socket. restrict_oom_score_adj:
 * root here lacks CAP_SYS_RESOURCE, and without it every pod fails with "can't get final
 * child's PID from pipe: EOF". cgroupfs (not systemd): there is no systemd here. The sandbox
 * image is the pause image the set-up built, imported by `up`: nothing is ever pulled.
 */
export function buildContainerdConfig(l: ClusterLayout, tc: ClusterToolchain): string {
  const cri = 'plugins."io.containerd.grpc.v1.cri"';
  return [
    "version = 2",
    `root = ${JSON.stringify(join(l.containerdRoot, "root"))}`,
    `state = ${JSON.stringify(join(l.runtime, "state"))}`,
    "",
    "[grpc]",
    `  address = ${JSON.stringify(l.containerdSocket)}`,
    "",
    `[${cri}]`,
    `  sandbox_image = ${JSON.stringify(qualifiedRef(tc.pauseImage.ref))}`,
    "  restrict_oom_score_adj = true",
    // Pods' network namespaces under our state directory, so `down` finds and removes them.
    "  netns_mounts_under_state_dir = true",
    `[${cri}.containerd]`,
    '  snapshotter = "overlayfs"',
    '  default_runtime_name = "runc"',
    `[${cri}.containerd.runtimes.runc]`,
    '  runtime_type = "io.containerd.runc.v2"',
    `[${cri}.containerd.runtimes.runc.options]`,
    "  SystemdCgroup = false",
    `  BinaryName = ${JSON.stringify(tc.runc)}`,
    // Per-registry hosts files: the test registry on loopback is plain HTTP (buildRegistryHosts).
    `[${cri}.registry]`,
    `  config_path = ${JSON.stringify(l.registryHosts)}`,
    `[${cri}.cni]`,
    `  bin_dir = ${JSON.stringify(tc.cniBinDir)}`,
    `  conf_dir = ${JSON.stringify(l.cniConfDir)}`,
    "",
    '[plugins."io.containerd.internal.v1.opt"]',
    `  path = ${JSON.stringify(join(l.containerdRoot, "opt"))}`,
    "",
  ].join("\n");
}

/**
 * containerd's hosts.toml for the test registry: pulled over plain HTTP, never pushed to by
 * containerd. Images keep the name 127.0.0.1:5001/…; a node in a namespace, whose loopback is
 * its own, pulls them from the host at the first node's bridge address.
 */
export function buildRegistryHosts(node: NodeSpec): { dir: string; content: string } {
  const at = node.netns ? `${NETWORK.bridgeGateway}:${PORTS.registry}` : TEST_REGISTRY;
  return {
    dir: TEST_REGISTRY,
    content: [`server = "http://${at}"`, "", `[host."http://${at}"]`, '  capabilities = ["pull", "resolve"]', ""].join("\n"),
  };
}

/** The registry host an image reference names (`ghcr.io/x/y`, `localhost:5000/x`), or undefined (Docker Hub). */
export function registryHostOf(ref: string): string | undefined {
  const first = ref.split("/")[0] ?? "";
  return ref.includes("/") && (first.includes(".") || first.includes(":") || first === "localhost") ? first : undefined;
}

/** How containerd names an image given without a registry (what the kubelet asks for). */
export function qualifiedRef(ref: string): string {
  return registryHostOf(ref) ? ref : `docker.io/${ref.includes("/") ? ref : `library/${ref}`}`;
}

/**
 * The pod network: one bridge whose gateway routes pods to Services (kube-proxy's rules run
 * on the host) and to the API server. The firewall plugin, last: with Docker running, its
 * FORWARD policy DROP (bridge-nf-call-iptables on) drops pod-to-pod traffic on the bridge
 * until each pod's addresses are allowed in FORWARD.
 */
export function buildCniConfig(l: ClusterLayout, node: NodeSpec): string {
  return `${JSON.stringify(
    {
      cniVersion: "1.0.0",
      name: "platform",
      plugins: [
        {
          type: "bridge",
          bridge: NETWORK.bridge,
          isGateway: true,
          ipMasq: true,
          hairpinMode: true,
          ipam: {
            type: "host-local",
            dataDir: l.cniIpamDir,
            ranges: [[{ subnet: node.podCidr, gateway: node.gateway }]],
            // The default route covers the Service range, which no interface owns.
            routes: [{ dst: "0.0.0.0/0" }],
          },
        },
        { type: "portmap", capabilities: { portMappings: true } },
        { type: "firewall", backend: "iptables" },
      ],
    },
    null,
    2,
  )}\n`;
}

/** The kubelet's certificate (and its kubeconfig's user) on a node: `kubelet` on the first. */
export const kubeletCertName = (node: NodeSpec) => nodeComponentName("kubelet", node);

/**
 * The kubelet on cgroup v1 (failCgroupV1: false) with cgroupfs, serving on the node's address
 * only (127.0.0.1 on the first). Image garbage collection is off: imported images cannot be
 * pulled back. A node in a namespace has a cgroup and a pods' log directory of its own: two
 * kubelets on one machine would otherwise take each other's pods for orphans.
 */
export function buildKubeletConfig(l: ClusterLayout, node: NodeSpec): string {
  return stringify({
    apiVersion: "kubelet.config.k8s.io/v1beta1",
    kind: "KubeletConfiguration",
    address: node.ip,
    port: PORTS.kubelet,
    readOnlyPort: 0,
    healthzBindAddress: node.ip,
    healthzPort: PORTS.kubeletHealthz,
    authentication: { anonymous: { enabled: false }, webhook: { enabled: true }, x509: { clientCAFile: join(l.pki, "ca.crt") } },
    authorization: { mode: "Webhook" },
    tlsCertFile: join(l.pki, `${kubeletCertName(node)}.crt`),
    tlsPrivateKeyFile: join(l.pki, `${kubeletCertName(node)}.key`),
    containerRuntimeEndpoint: `unix://${l.containerdSocket}`,
    cgroupDriver: "cgroupfs",
    failCgroupV1: false,
    failSwapOn: false,
    clusterDomain: NETWORK.clusterDomain,
    clusterDNS: [NETWORK.dnsServiceIp],
    resolvConf: "/etc/resolv.conf",
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    evictionHard: { "memory.available": "100Mi", "nodefs.available": "1%", "imagefs.available": "1%" },
    serializeImagePulls: false,
    maxPods: 110,
    ...(node.netns ? { cgroupRoot: nodeCgroupRoot(node) } : {}),
    ...(l.podLogs ? { podLogsDir: l.podLogs } : {}),
  });
}

/** kube-proxy in iptables mode. conntrack maxPerCore 0: leave the host's conntrack table size alone. */
export function buildKubeProxyConfig(l: ClusterLayout, node: NodeSpec): string {
  return stringify({
    apiVersion: "kubeproxy.config.k8s.io/v1alpha1",
    kind: "KubeProxyConfiguration",
    clientConnection: { kubeconfig: join(l.kubeconfigs, `${nodeComponentName("kube-proxy", node)}.yaml`) },
    mode: "iptables",
    clusterCIDR: NETWORK.podCidr,
    hostnameOverride: node.name,
    healthzBindAddress: `${node.ip}:${PORTS.proxyHealthz}`,
    metricsBindAddress: `${node.ip}:${PORTS.proxyMetrics}`,
    conntrack: { maxPerCore: 0 },
  });
}
