import { join } from "node:path";
import { certManagerComponent } from "./cert-manager.js";
import { type ComponentSpec, toFlags } from "./component-spec.js";
import { type FrontDoorAcme, traefikSpec } from "./front-door.js";
import { type ClusterLayout, type ClusterToolchain, binary, NETWORK, PORTS } from "./layout.js";
import { aggregationFlags, metricsServerComponent } from "./metrics-server.js";
import { nodeComponentName, nodeLayout, type NodeSpec, nodeSpec } from "./nodes.js";

export { type ComponentSpec, type HealthCheck, toFlags } from "./component-spec.js";

/** The components in start order; `down` stops them in reverse. `acme`: the front door's ACME CA. */
export function buildComponents(l: ClusterLayout, tc: ClusterToolchain, acme?: FrontDoorAcme): ComponentSpec[] {
  const pki = (f: string) => join(l.pki, f);
  const kubeconfig = (name: string) => join(l.kubeconfigs, `${name}.yaml`);
  const etcdUrl = `http://127.0.0.1:${PORTS.etcdClient}`;
  // Each controller talks to the API server with its own identity and delegates its own
  // authentication and authorization to it, as in kubeadm's static pods.
  const delegated = (name: string) => [
    "--kubeconfig",
    kubeconfig(name),
    "--authentication-kubeconfig",
    kubeconfig(name),
    "--authorization-kubeconfig",
    kubeconfig(name),
  ];
  const node = nodeComponents(l, tc, nodeSpec(1));
  return [
    node.containerd,
    {
      name: "etcd",
      command: tc.etcd,
      args: toFlags(
        "--name",
        "platform",
        "--data-dir",
        l.etcdData,
        "--listen-client-urls",
        etcdUrl,
        "--advertise-client-urls",
        etcdUrl,
        "--listen-peer-urls",
        `http://127.0.0.1:${PORTS.etcdPeer}`,
        "--initial-advertise-peer-urls",
        `http://127.0.0.1:${PORTS.etcdPeer}`,
        "--initial-cluster",
        `platform=http://127.0.0.1:${PORTS.etcdPeer}`,
      ),
      health: { kind: "http", url: `${etcdUrl}/health` },
    },
    {
      // Listens on every address because pods reach it through the bridge gateway, which is
      // what the `kubernetes` Service points at (loopback endpoints are refused). An INPUT
      // rule (host.ts) keeps other machines out.
      name: "kube-apiserver",
      command: binary(tc, "kube-apiserver"),
      args: toFlags(
        "--bind-address",
        "0.0.0.0",
        "--secure-port",
        String(PORTS.apiserver),
        "--advertise-address",
        NETWORK.bridgeGateway,
        "--etcd-servers",
        etcdUrl,
        "--service-cluster-ip-range",
        NETWORK.serviceCidr,
        "--client-ca-file",
        pki("ca.crt"),
        "--tls-cert-file",
        pki("apiserver.crt"),
        "--tls-private-key-file",
        pki("apiserver.key"),
        "--kubelet-client-certificate",
        pki("apiserver-kubelet-client.crt"),
        "--kubelet-client-key",
        pki("apiserver-kubelet-client.key"),
        "--kubelet-certificate-authority",
        pki("ca.crt"),
        "--kubelet-preferred-address-types",
        "InternalIP,Hostname",
        "--service-account-issuer",
        `https://kubernetes.default.svc.${NETWORK.clusterDomain}`,
        "--service-account-key-file",
        pki("sa.pub"),
        "--service-account-signing-key-file",
        pki("sa.key"),
        "--authorization-mode",
        "Node,RBAC",
        "--enable-admission-plugins",
        "NodeRestriction",
        "--anonymous-auth",
        "false",
        "--allow-privileged",
        "true",
        "--profiling",
        "false",
        ...aggregationFlags(pki),
      ),
      health: { kind: "https-admin", url: `https://127.0.0.1:${PORTS.apiserver}/readyz` },
      // It drains for a minute or more on SIGTERM; its state is all in etcd, so no need to wait.
      stopGraceMs: 2000,
    },
    {
      name: "kube-controller-manager",
      command: binary(tc, "kube-controller-manager"),
      args: toFlags(
        ...delegated("controller-manager"),
        "--bind-address",
        "127.0.0.1",
        "--leader-elect",
        "false",
        "--cluster-name",
        "platform",
        "--cluster-signing-cert-file",
        pki("ca.crt"),
        "--cluster-signing-key-file",
        pki("ca.key"),
        "--root-ca-file",
        pki("ca.crt"),
        "--service-account-private-key-file",
        pki("sa.key"),
        "--use-service-account-credentials",
        "true",
        "--service-cluster-ip-range",
        NETWORK.serviceCidr,
        "--profiling",
        "false",
      ),
      health: { kind: "https-insecure", url: `https://127.0.0.1:${PORTS.controllerManager}/healthz` },
    },
    {
      name: "kube-scheduler",
      command: binary(tc, "kube-scheduler"),
      args: toFlags(...delegated("scheduler"), "--bind-address", "127.0.0.1", "--leader-elect", "false", "--profiling", "false"),
      health: { kind: "https-insecure", url: `https://127.0.0.1:${PORTS.scheduler}/healthz` },
    },
    node.kubelet,
    node.kubeProxy,
    {
      name: "registry",
      command: tc.registry,
      // On every address, for the nodes in namespaces (configs.ts buildRegistryHosts); an INPUT
      // rule (host.ts) keeps other machines out. Pushes still go to 127.0.0.1.
      args: toFlags("--listen", `0.0.0.0:${PORTS.registry}`, "--dir", l.registryData),
      health: { kind: "http", url: `http://127.0.0.1:${PORTS.registry}/v2/` },
    },
    metricsServerComponent(l, tc),
    traefikSpec(l, tc, acme),
    certManagerComponent(l, tc),
  ];
}

/**
 * A node's own processes: containerd, the kubelet and kube-proxy. The first node's run on the
 * host (their names plain); another node's in its network namespace, with its own files.
 */
export function nodeComponents(
  cl: ClusterLayout,
  tc: ClusterToolchain,
  node: NodeSpec,
): { containerd: ComponentSpec; kubelet: ComponentSpec; kubeProxy: ComponentSpec } {
  const l = nodeLayout(cl, node);
  const name = (base: string) => nodeComponentName(base, node);
  const netns = node.netns ? { netns: node.netns.name } : {};
  return {
    containerd: {
      name: name("containerd"),
      command: tc.containerd,
      args: toFlags("--config", join(l.config, "containerd.toml")),
      health: { kind: "containerd", socket: l.containerdSocket },
      ...netns,
    },
    // The first node: a loopback --node-ip is refused (the kubelet then sets no address at
    // all); `up` patches the node's InternalIP to 127.0.0.1, where the API server reaches it.
    kubelet: {
      name: name("kubelet"),
      command: binary(tc, "kubelet"),
      args: toFlags(
        "--config",
        join(l.config, "kubelet.yaml"),
        "--kubeconfig",
        join(l.kubeconfigs, `${name("kubelet")}.yaml`),
        "--root-dir",
        l.kubeletRoot,
        "--hostname-override",
        node.name,
        "--node-ip",
        node.ip,
      ),
      health: { kind: "http", url: `http://${node.ip}:${PORTS.kubeletHealthz}/healthz` },
      ...netns,
    },
    kubeProxy: {
      name: name("kube-proxy"),
      command: binary(tc, "kube-proxy"),
      args: toFlags("--config", join(l.config, "kube-proxy.yaml")),
      // /healthz, not /livez: /livez says the process runs, /healthz that it has written the
      // Service rules (503 until its first sync, and while a change waits for one), so a test
      // that reaches a Service right after `up` no longer races kube-proxy's first sync.
      health: { kind: "http", url: `http://${node.ip}:${PORTS.proxyHealthz}/healthz` },
      ...netns,
    },
  };
}
