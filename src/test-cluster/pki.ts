import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NETWORK } from "./layout.js";
import { nodeComponentName, type NodeSpec, nodeSpec } from "./nodes.js";
import { runTool } from "./exec.js";

/**
 * The test cluster's PKI: one CA signs every certificate. Node can make keys but not X.509
 * certificates, so this uses the openssl CLI. Keys are EC P-256 (fast to make, accepted by
 * every component). Made once; `down --purge` removes them.
 */
export interface CertSpec {
  /** File stem under pki/: NAME.crt and NAME.key. */
  name: string;
  cn: string;
  org?: string;
  usage: "server" | "client" | "both";
  ips?: readonly string[];
  dns?: readonly string[];
}

const VALID_DAYS = 3650;

/** Every certificate, as the components' authenticators and the Node authorizer expect; a kubelet's per node. */
export function buildCertSpecs(nodes: readonly NodeSpec[] = [nodeSpec(1)]): CertSpec[] {
  const apiDns = [
    "localhost",
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
    `kubernetes.default.svc.${NETWORK.clusterDomain}`,
  ];
  return [
    // Host clients use 127.0.0.1; pods use the Service IP, which leads to the bridge gateway.
    {
      name: "apiserver",
      cn: "kube-apiserver",
      usage: "server",
      ips: ["127.0.0.1", NETWORK.apiServiceIp, NETWORK.bridgeGateway],
      dns: apiDns,
    },
    { name: "apiserver-kubelet-client", cn: "kube-apiserver-kubelet-client", org: "system:masters", usage: "client" },
    { name: "admin", cn: "platform-admin", org: "system:masters", usage: "client" },
    { name: "controller-manager", cn: "system:kube-controller-manager", usage: "client" },
    { name: "scheduler", cn: "system:kube-scheduler", usage: "client" },
    // The Node authorizer knows a kubelet by this exact name and group.
    ...nodes.map(
      (n): CertSpec => ({
        name: nodeComponentName("kubelet", n),
        cn: `system:node:${n.name}`,
        org: "system:nodes",
        usage: "both",
        ips: [n.ip],
        dns: n.netns ? [n.name] : [n.name, "localhost"],
      }),
    ),
    { name: "kube-proxy", cn: "system:kube-proxy", usage: "client" },
    // The ingress controller: its ClusterRole names this user (front-door.ts).
    { name: "traefik", cn: "platform:traefik", usage: "client" },
    // cert-manager's controller: its ClusterRole names this user (cert-manager.ts).
    { name: "cert-manager", cn: "platform:cert-manager", usage: "client" },
    // API aggregation: the API server proxies metrics.k8s.io to metrics-server as this client,
    // which metrics-server trusts to name the user (--requestheader-allowed-names).
    { name: "front-proxy-client", cn: "front-proxy-client", usage: "client" },
    // metrics-server: served to the API server under its Service's name, a client of the API
    // server and of the kubelet. An existing cluster's pki gains both on its next `up`.
    {
      name: "metrics-server",
      cn: "system:metrics-server",
      usage: "both",
      ips: [NETWORK.bridgeGateway, "127.0.0.1"],
      dns: ["metrics-server.kube-system.svc", `metrics-server.kube-system.svc.${NETWORK.clusterDomain}`],
    },
  ];
}

/** The openssl config of one certificate: subject and v3 extensions. */
export function buildOpensslConfig(spec: CertSpec | { ca: true; cn: string }): string {
  const isCa = "ca" in spec;
  const lines = ["[req]", "distinguished_name = dn", "prompt = no", "[dn]", `CN = ${spec.cn}`];
  if (!isCa && spec.org) lines.push(`O = ${spec.org}`);
  lines.push("[ext]");
  if (isCa) {
    lines.push(
      "basicConstraints = critical,CA:TRUE",
      "keyUsage = critical,keyCertSign,cRLSign,digitalSignature",
      "subjectKeyIdentifier = hash",
    );
    return `${lines.join("\n")}\n`;
  }
  const eku = { server: "serverAuth", client: "clientAuth", both: "serverAuth,clientAuth" }[spec.usage];
  lines.push("basicConstraints = critical,CA:FALSE", "keyUsage = critical,digitalSignature,keyEncipherment", `extendedKeyUsage = ${eku}`);
  const sans = [...(spec.ips ?? []).map((ip) => `IP:${ip}`), ...(spec.dns ?? []).map((d) => `DNS:${d}`)];
  if (sans.length) lines.push(`subjectAltName = ${sans.join(",")}`);
  return `${lines.join("\n")}\n`;
}

async function openssl(args: string[]): Promise<void> {
  await runTool("openssl", args, { what: "openssl (apt-get install openssl)" });
}

async function newKey(file: string): Promise<void> {
  await openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", file]);
}

/** Writes whatever is missing: the CA, each certificate, the service-account key pair. */
export async function writePki(dir: string, nodes?: readonly NodeSpec[]): Promise<void> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = mkdtempSync(join(tmpdir(), "platform-pki-"));
  try {
    const ca = { crt: join(dir, "ca.crt"), key: join(dir, "ca.key") };
    if (!existsSync(ca.crt) || !existsSync(ca.key)) {
      await newKey(ca.key);
      const cnf = join(tmp, "ca.cnf");
      writeFileSync(cnf, buildOpensslConfig({ ca: true, cn: "platform-cluster-ca" }));
      await openssl([
        "req",
        "-x509",
        "-new",
        "-key",
        ca.key,
        "-config",
        cnf,
        "-extensions",
        "ext",
        "-days",
        String(VALID_DAYS),
        "-out",
        ca.crt,
      ]);
    }
    for (const spec of buildCertSpecs(nodes)) {
      const crt = join(dir, `${spec.name}.crt`);
      const key = join(dir, `${spec.name}.key`);
      if (existsSync(crt) && existsSync(key)) continue;
      await newKey(key);
      const cnf = join(tmp, `${spec.name}.cnf`);
      writeFileSync(cnf, buildOpensslConfig(spec));
      await openssl([
        "req",
        "-x509",
        "-new",
        "-key",
        key,
        "-CA",
        ca.crt,
        "-CAkey",
        ca.key,
        "-config",
        cnf,
        "-extensions",
        "ext",
        "-days",
        String(VALID_DAYS),
        "-out",
        crt,
      ]);
    }
    // Service-account tokens are signed by the controller-manager and checked by the API server.
    const sa = { key: join(dir, "sa.key"), pub: join(dir, "sa.pub") };
    if (!existsSync(sa.key) || !existsSync(sa.pub)) {
      await newKey(sa.key);
      await openssl(["pkey", "-in", sa.key, "-pubout", "-out", sa.pub]);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
