import { join } from "node:path";
import { stringify } from "yaml";
import { type ComponentSpec, toFlags } from "./component-spec.js";
import { type ClusterLayout, type ClusterToolchain, NETWORK, PORTS } from "./layout.js";

/**
 * metrics-server, the cluster's resource metrics API (metrics.k8s.io: what HorizontalPodAutoscalers
 * and `kubectl top` read), as a host process like the control plane. The API server reaches it
 * through API aggregation: the APIService names a Service without a selector whose Endpoints is
 * the host's bridge address, and --enable-aggregator-routing makes the API server dial that
 * endpoint itself (no kube-proxy rule in the way). metrics-server scrapes the kubelet at the
 * node's InternalIP (127.0.0.1, patched by `up`), verifying it with the cluster CA.
 */

/** Its HTTPS port, on the bridge gateway (the scheduler's old insecure port, unused since 1.23). */
export const METRICS_SERVER_PORT = 10251;

/** How often it scrapes the kubelet: an autoscaler sees a load change within about this long. */
export const METRICS_RESOLUTION = "15s";

export const METRICS_SERVER = "metrics-server";
const NAME = METRICS_SERVER;
const NS = "kube-system";

/** The API server's flags for aggregation: whom it proxies as, and whose user headers extension servers trust. */
export function aggregationFlags(pki: (f: string) => string): string[] {
  return [
    "--requestheader-client-ca-file",
    pki("ca.crt"),
    "--requestheader-allowed-names",
    "front-proxy-client",
    "--requestheader-username-headers",
    "X-Remote-User",
    "--requestheader-group-headers",
    "X-Remote-Group",
    "--requestheader-extra-headers-prefix",
    "X-Remote-Extra-",
    "--proxy-client-cert-file",
    pki("front-proxy-client.crt"),
    "--proxy-client-key-file",
    pki("front-proxy-client.key"),
    "--enable-aggregator-routing",
    "true",
  ];
}

/**
 * The host process (a ComponentSpec of components.ts, which lists it); `up` starts it once the
 * bridge exists (CoreDNS runs) and its API objects are applied (metrics-api.ts).
 */
export function metricsServerComponent(l: ClusterLayout, tc: ClusterToolchain): ComponentSpec {
  const pki = (f: string) => join(l.pki, f);
  const kubeconfig = join(l.kubeconfigs, `${NAME}.yaml`);
  return {
    name: NAME,
    command: tc.metricsServer,
    args: toFlags(
      "--bind-address",
      NETWORK.bridgeGateway,
      "--secure-port",
      String(METRICS_SERVER_PORT),
      "--tls-cert-file",
      pki(`${NAME}.crt`),
      "--tls-private-key-file",
      pki(`${NAME}.key`),
      "--kubeconfig",
      kubeconfig,
      "--authentication-kubeconfig",
      kubeconfig,
      "--authorization-kubeconfig",
      kubeconfig,
      "--kubelet-preferred-address-types",
      "InternalIP",
      "--kubelet-port",
      String(PORTS.kubelet),
      "--kubelet-certificate-authority",
      pki("ca.crt"),
      "--kubelet-client-certificate",
      pki(`${NAME}.crt`),
      "--kubelet-client-key",
      pki(`${NAME}.key`),
      "--metric-resolution",
      METRICS_RESOLUTION,
      "--profiling",
      "false",
    ),
    // /livez is open to anyone (--authorization-always-allow-paths' default).
    health: { kind: "https-insecure", url: `https://${NETWORK.bridgeGateway}:${METRICS_SERVER_PORT}/livez` },
  };
}

/** RBAC as in metrics-server's own manifests, the Service and Endpoints at the host, and the APIService. */
export function buildMetricsServerManifests(caPem: string): string {
  const user = { kind: "User", name: `system:${NAME}`, apiGroup: "rbac.authorization.k8s.io" };
  const role = (kind: string, name: string) => ({ kind, name, apiGroup: "rbac.authorization.k8s.io" });
  const docs: object[] = [
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: `system:${NAME}` },
      rules: [
        { apiGroups: [""], resources: ["nodes/metrics"], verbs: ["get"] },
        { apiGroups: [""], resources: ["pods", "nodes"], verbs: ["get", "list", "watch"] },
      ],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: `system:${NAME}` },
      roleRef: role("ClusterRole", `system:${NAME}`),
      subjects: [user],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: `${NAME}:system:auth-delegator` },
      roleRef: role("ClusterRole", "system:auth-delegator"),
      subjects: [user],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: `${NAME}-auth-reader`, namespace: NS },
      roleRef: role("Role", "extension-apiserver-authentication-reader"),
      subjects: [user],
    },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: NAME, namespace: NS, labels: { "k8s-app": NAME } },
      spec: { ports: [{ name: "https", port: 443, targetPort: METRICS_SERVER_PORT, protocol: "TCP" }] },
    },
    {
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: { name: NAME, namespace: NS, labels: { "k8s-app": NAME } },
      subsets: [{ addresses: [{ ip: NETWORK.bridgeGateway }], ports: [{ name: "https", port: METRICS_SERVER_PORT, protocol: "TCP" }] }],
    },
    {
      apiVersion: "apiregistration.k8s.io/v1",
      kind: "APIService",
      metadata: { name: "v1beta1.metrics.k8s.io", labels: { "k8s-app": NAME } },
      spec: {
        group: "metrics.k8s.io",
        version: "v1beta1",
        groupPriorityMinimum: 100,
        versionPriority: 100,
        service: { name: NAME, namespace: NS, port: 443 },
        caBundle: Buffer.from(caPem).toString("base64"),
      },
    },
  ];
  return docs.map((d) => stringify(d)).join("---\n");
}
