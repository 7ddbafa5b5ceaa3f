import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { homePaths, platformHome } from "../home/layout.js";

/**
 * Where the test cluster keeps its things, its fixed addresses, and what the set-up built for
 * it. The test cluster is machine set-up (like the Docker engine), used by the CLI and the
 * tests; it is not part of the deploy pipeline, which only ever sees a kubeconfig.
 */
export interface ClusterLayout {
  /** ~/.platform/cluster: everything below except the runtime directory. */
  dir: string;
  pki: string;
  /** One kubeconfig per client; admin.yaml is the one people use. */
  kubeconfigs: string;
  adminKubeconfig: string;
  /** Configuration files written on every `up` (containerd, kubelet, kube-proxy, CNI). */
  config: string;
  cniConfDir: string;
  /** host-local IPAM's allocations: cleared by `down`, when no pod holds an address. */
  cniIpamDir: string;
  pids: string;
  logs: string;
  etcdData: string;
  containerdRoot: string;
  kubeletRoot: string;
  /** The registry's blobs (see REGISTRY). */
  registryData: string;
  /** containerd's per-registry hosts files (hosts.toml), one directory per registry host. */
  registryHosts: string;
  /**
   * containerd's state, socket and pods' network namespaces. A unix socket path is limited to
   * 108 bytes and this holds the shims' sockets, hence a short path under /run. Not Docker's
   * /run/containerd: a dockerd that restarts adopts a containerd it finds there.
   */
  runtime: string;
  containerdSocket: string;
  /** Where the kubelet keeps pods' logs (its podLogsDir); unset: the kubelet's default, /var/log/pods. */
  podLogs?: string;
}

export function clusterLayout(home = platformHome()): ClusterLayout {
  const dir = homePaths.clusterDir(home);
  return {
    dir,
    pki: join(dir, "pki"),
    kubeconfigs: join(dir, "kubeconfig"),
    adminKubeconfig: join(dir, "kubeconfig", "admin.yaml"),
    config: join(dir, "config"),
    cniConfDir: join(dir, "config", "cni"),
    cniIpamDir: join(dir, "cni-ipam"),
    pids: join(dir, "run"),
    logs: join(dir, "logs"),
    etcdData: join(dir, "etcd"),
    containerdRoot: join(dir, "containerd"),
    kubeletRoot: join(dir, "kubelet"),
    registryData: join(dir, "registry"),
    registryHosts: join(dir, "config", "registry-hosts"),
    runtime: "/run/platform-k8s",
    containerdSocket: "/run/platform-k8s/containerd.sock",
  };
}

/**
 * The cluster's addresses. The pod and service ranges stay clear of Docker's default pools
 * (172.17.0.0/12, 192.168.0.0/16). Pods reach the API server at the bridge's gateway: the
 * `kubernetes` Service cannot point at loopback (the API refuses 127.0.0.0/8 endpoints).
 */
export const NETWORK = {
  nodeName: "platform",
  podCidr: "10.244.0.0/16",
  nodePodCidr: "10.244.0.0/24",
  bridge: "platform-cni0",
  bridgeGateway: "10.244.0.1",
  serviceCidr: "10.96.0.0/16",
  apiServiceIp: "10.96.0.1",
  dnsServiceIp: "10.96.0.10",
  clusterDomain: "cluster.local",
} as const;

export const PORTS = {
  apiserver: 6443,
  etcdClient: 2379,
  etcdPeer: 2380,
  kubelet: 10250,
  kubeletHealthz: 10248,
  controllerManager: 10257,
  scheduler: 10259,
  proxyHealthz: 10256,
  proxyMetrics: 10249,
  registry: 5001,
} as const;

/**
 * The test cluster's image registry, on loopback: `platform deploy --registry` pushes there as
 * to a real cluster's registry, and containerd pulls from it over plain HTTP (hosts.toml).
 */
export const TEST_REGISTRY = `127.0.0.1:${PORTS.registry}`;

export const API_SERVER_URL = `https://127.0.0.1:${PORTS.apiserver}`;

/** What scripts/setup/kubernetes.sh built and installed ($PLATFORM_HOME/kubernetes.json). */
export interface ClusterToolchain {
  kubernetesVersion: string;
  binDir: string;
  pauseImage: { ref: string; archive: string };
  corednsImage: { ref: string; archive: string };
  /** The registry binary (go-containerregistry's, built by the set-up). */
  registry: string;
  /** Traefik, the cluster's ingress controller (scripts/setup/traefik.sh). */
  traefik: string;
  /** metrics-server's binary (the resource metrics API: autoscalers, kubectl top), built by the set-up. */
  metricsServer: string;
  /** cert-manager (cert-manager.ts): its controller, its CRDs' directory, the HTTP-01 solver's image archive. */
  certManager: { version: string; controller: string; crdDir: string; solverImage: { ref: string; archive: string } };
  pulumiKubernetesVersion: string;
  containerd: string;
  ctr: string;
  runc: string;
  etcd: string;
  cniBinDir: string;
}

export function toolchainFile(home = platformHome()): string {
  return homePaths.clusterToolchainFile(home);
}

/** The toolchain when every file it names exists, else undefined (the set-up must run). */
export function readClusterToolchain(home = platformHome()): ClusterToolchain | undefined {
  let tc: ClusterToolchain;
  try {
    tc = JSON.parse(readFileSync(toolchainFile(home), "utf8")) as ClusterToolchain;
  } catch {
    return undefined;
  }
  const files = [
    ...["kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubelet", "kube-proxy", "kubectl"].map((b) =>
      join(tc.binDir ?? "", b),
    ),
    tc.pauseImage?.archive,
    tc.corednsImage?.archive,
    tc.registry,
    tc.traefik,
    tc.metricsServer,
    tc.certManager?.controller,
    tc.certManager?.crdDir,
    tc.certManager?.solverImage?.archive,
    tc.containerd,
    tc.ctr,
    tc.runc,
    tc.etcd,
    join(tc.cniBinDir ?? "", "bridge"),
  ];
  return files.every((f) => !!f && existsSync(f)) ? tc : undefined;
}

export function binary(tc: ClusterToolchain, name: string): string {
  return join(tc.binDir, name);
}

/**
 * The test cluster's front door: Traefik, its ingress controller, on loopback beside this
 * machine's Docker edge (which holds 127.0.0.1:443), on ports of its own.
 */
export const FRONT_DOOR = { address: "127.0.0.1", httpPort: 10080, httpsPort: 10443, pingPort: 10880, ingressClass: "traefik" } as const;
