import { join } from "node:path";
import { stringify } from "yaml";
import { type ComponentSpec, toFlags } from "./component-spec.js";
import { waitFor } from "./exec.js";
import { kubectl } from "./kubectl.js";
import { type ClusterLayout, type ClusterToolchain, FRONT_DOOR } from "./layout.js";

/**
 * cert-manager, as clusters commonly run it for their Ingresses' certificates: its controller
 * (our own main over cert-manager v1.21.2's packages, scripts/setup/go/kubernetes/cert-manager)
 * as a host process like the control plane, its CRDs, and its HTTP-01 solver image, which the
 * controller runs as a pod per challenge behind an Ingress of the front door's class. An Ingress
 * annotated `cert-manager.io/cluster-issuer` (`platform deploy --cluster-issuer`) gets a
 * Certificate per `tls` entry. No webhook (no admission validation) and no cainjector: a test
 * cluster's cert-manager, not a hardened one.
 */

export const CERT_MANAGER = "cert-manager";
const NAME = CERT_MANAGER;

/** Where the Secrets of ClusterIssuers go (ACME account keys, a CA issuer's key pair). */
export const CERT_MANAGER_NAMESPACE = "cert-manager";

/** Its /healthz, on loopback (cert-manager's usual health port). */
export const CERT_MANAGER_HEALTHZ_PORT = 9403;

/**
 * Before an HTTP-01 challenge is handed to the CA, the controller fetches the token itself from
 * the host's port 80, as the CA will. The test cluster's front door takes plain HTTP on
 * FRONT_DOOR.httpPort, not 80 (ports below 1024 of this machine are its Docker edge's), so the
 * controller's plain-HTTP requests go through the front door as their proxy: Traefik routes a
 * proxied request by its Host like any other, to the solver's Ingress. HTTPS (the ACME
 * directory, the API server) never uses it.
 */
export function selfCheckProxyEnv(): Record<string, string> {
  const proxy = `http://${FRONT_DOOR.address}:${FRONT_DOOR.httpPort}`;
  return { HTTP_PROXY: proxy, http_proxy: proxy, HTTPS_PROXY: "", https_proxy: "", NO_PROXY: "", no_proxy: "" };
}

/** The controller as a host process (components.ts lists it); `up` starts it once its CRDs and rights exist. */
export function certManagerComponent(l: ClusterLayout, tc: ClusterToolchain): ComponentSpec {
  return {
    name: NAME,
    command: tc.certManager.controller,
    args: toFlags(
      "--kubeconfig",
      join(l.kubeconfigs, `${NAME}.yaml`),
      "--cluster-resource-namespace",
      CERT_MANAGER_NAMESPACE,
      "--acme-http01-solver-image",
      tc.certManager.solverImage.ref,
      "--healthz-address",
      `127.0.0.1:${CERT_MANAGER_HEALTHZ_PORT}`,
    ),
    env: selfCheckProxyEnv(),
    health: { kind: "http", url: `http://127.0.0.1:${CERT_MANAGER_HEALTHZ_PORT}/healthz` },
  };
}

const rule = (apiGroups: string[], resources: string[], verbs: string[]) => ({ apiGroups, resources, verbs });
const ALL = ["get", "list", "watch", "create", "update", "patch", "delete"];

/** Its namespace, and its rights as the user `platform:cert-manager` (pki.ts): what its controllers read and write. */
export function buildCertManagerManifests(): string {
  const subject = { kind: "User", name: `platform:${NAME}`, apiGroup: "rbac.authorization.k8s.io" };
  const docs: object[] = [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: CERT_MANAGER_NAMESPACE } },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: `platform:${NAME}` },
      rules: [
        rule(
          ["cert-manager.io"],
          ["certificates", "certificaterequests", "issuers", "clusterissuers"].flatMap((r) => [r, `${r}/status`, `${r}/finalizers`]),
          ALL,
        ),
        rule(["cert-manager.io"], ["signers"], ["approve"]),
        rule(
          ["acme.cert-manager.io"],
          ["orders", "challenges"].flatMap((r) => [r, `${r}/status`, `${r}/finalizers`]),
          ALL,
        ),
        // Certificates' Secrets; the solver's pod, Service and Ingress per challenge.
        rule([""], ["secrets", "pods", "services"], ALL),
        rule(["networking.k8s.io"], ["ingresses", "ingresses/finalizers"], ALL),
        rule([""], ["events"], ["create", "patch"]),
      ],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: `platform:${NAME}` },
      roleRef: { kind: "ClusterRole", name: `platform:${NAME}`, apiGroup: "rbac.authorization.k8s.io" },
      subjects: [subject],
    },
  ];
  return docs.map((d) => stringify(d)).join("---\n");
}

/** The CRDs' names, as the files of deploy/crds name them (`<group>_<plural>.yaml`). */
export const CERT_MANAGER_CRDS = [
  "certificates.cert-manager.io",
  "certificaterequests.cert-manager.io",
  "issuers.cert-manager.io",
  "clusterissuers.cert-manager.io",
  "orders.acme.cert-manager.io",
  "challenges.acme.cert-manager.io",
];

/**
 * Its CRDs (server-side: the issuers' CRDs exceed the annotation a client-side apply keeps),
 * established; its namespace and rights; then the process. Returns what it started.
 */
export async function startCertManager(
  l: ClusterLayout,
  tc: ClusterToolchain,
  start: (specs: ComponentSpec[]) => Promise<string[]>,
  specs: ComponentSpec[],
): Promise<string[]> {
  await kubectl(l, tc, ["apply", "--server-side", "--force-conflicts", "--field-manager", "platform-cluster", "-f", tc.certManager.crdDir]);
  await waitFor(
    "cert-manager's CRDs to be established",
    async () => {
      const r = await kubectl(
        l,
        tc,
        ["wait", "--for", "condition=Established", "--timeout", "5s", ...CERT_MANAGER_CRDS.map((c) => `crd/${c}`)],
        {
          allowFail: true,
        },
      );
      return r.code === 0 ? true : undefined;
    },
    { timeoutMs: 60_000, everyMs: 500 },
  );
  await kubectl(l, tc, ["apply", "-f", "-"], { input: buildCertManagerManifests() });
  return start(specs);
}
