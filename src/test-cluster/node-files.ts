import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  buildCniConfig,
  buildContainerdConfig,
  buildKubeconfig,
  buildKubeletConfig,
  buildKubeProxyConfig,
  buildRegistryHosts,
  kubeletCertName,
} from "./configs.js";
import { type ClusterLayout, type ClusterToolchain, PORTS } from "./layout.js";
import { apiServerFor, nodeComponentName, nodeLayout, type NodeSpec } from "./nodes.js";

/** kube-proxy watches its configuration file and exits when it is written, even unchanged. */
export function writeIfChanged(file: string, content: string, o: { mode?: number } = {}): void {
  let old: string | undefined;
  try {
    old = readFileSync(file, "utf8");
  } catch {
    /* new */
  }
  if (old !== content) writeFileSync(file, content, o);
}

/** A kubeconfig for one client certificate of the PKI, at an API server address. */
export function writeKubeconfig(l: ClusterLayout, file: string, cert: string, server: string): void {
  const pem = (f: string) => readFileSync(join(l.pki, f), "utf8");
  writeIfChanged(
    join(l.kubeconfigs, `${file}.yaml`),
    buildKubeconfig({ server, user: file, caPem: pem("ca.crt"), certPem: pem(`${cert}.crt`), keyPem: pem(`${cert}.key`) }),
    { mode: 0o600 },
  );
}

/** One node's configuration (containerd, registry hosts, kubelet, kube-proxy, CNI) and its two kubeconfigs, written on every `up`. */
export function writeNodeFiles(cl: ClusterLayout, tc: ClusterToolchain, node: NodeSpec): void {
  const l = nodeLayout(cl, node);
  for (const d of [l.config, l.cniConfDir, l.containerdRoot, l.kubeletRoot, l.runtime, ...(l.podLogs ? [l.podLogs] : [])])
    mkdirSync(d, { recursive: true, mode: 0o700 });
  const server = apiServerFor(node, PORTS.apiserver);
  writeKubeconfig(l, kubeletCertName(node), kubeletCertName(node), server);
  writeKubeconfig(l, nodeComponentName("kube-proxy", node), "kube-proxy", server);
  writeIfChanged(join(l.config, "containerd.toml"), buildContainerdConfig(l, tc));
  const hosts = buildRegistryHosts(node);
  mkdirSync(join(l.registryHosts, hosts.dir), { recursive: true, mode: 0o700 });
  writeIfChanged(join(l.registryHosts, hosts.dir, "hosts.toml"), hosts.content);
  writeIfChanged(join(l.config, "kubelet.yaml"), buildKubeletConfig(l, node));
  writeIfChanged(join(l.config, "kube-proxy.yaml"), buildKubeProxyConfig(l, node));
  writeIfChanged(join(l.cniConfDir, "10-platform.conflist"), buildCniConfig(l, node));
}
