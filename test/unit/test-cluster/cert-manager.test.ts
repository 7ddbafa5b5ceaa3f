import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import {
  buildCertManagerManifests,
  CERT_MANAGER_HEALTHZ_PORT,
  CERT_MANAGER_NAMESPACE,
  certManagerComponent,
  selfCheckProxyEnv,
} from "../../../src/test-cluster/cert-manager.js";
import { buildComponents } from "../../../src/test-cluster/components.js";
import { clusterLayout, type ClusterToolchain, FRONT_DOOR } from "../../../src/test-cluster/layout.js";
import { buildCertSpecs } from "../../../src/test-cluster/pki.js";
import { certManagerToolchain } from "./toolchain-fixture.js";

const layout = clusterLayout("/home/u/.platform");
const tc = { binDir: "/tc/bin", certManager: certManagerToolchain } as ClusterToolchain;

describe("the test cluster's cert-manager", () => {
  it("runs its controller from the toolchain, last, with its own identity, namespace and solver image", () => {
    const specs = buildComponents(layout, tc);
    expect(specs.at(-1)?.name).toBe("cert-manager");
    const cm = certManagerComponent(layout, tc);
    expect(cm.command).toBe("/tc/cert-manager/bin/cert-manager-controller");
    expect(cm.args).toEqual([
      "--kubeconfig=/home/u/.platform/cluster/kubeconfig/cert-manager.yaml",
      `--cluster-resource-namespace=${CERT_MANAGER_NAMESPACE}`,
      "--acme-http01-solver-image=platform-local/cert-manager-acmesolver:v1.21.2",
      `--healthz-address=127.0.0.1:${CERT_MANAGER_HEALTHZ_PORT}`,
    ]);
    expect(cm.health).toEqual({ kind: "http", url: `http://127.0.0.1:${CERT_MANAGER_HEALTHZ_PORT}/healthz` });
    expect(buildCertSpecs().find((c) => c.name === "cert-manager")).toMatchObject({ cn: "platform:cert-manager", usage: "client" });
  });

  it("its HTTP-01 self-check reaches port 80 of a host through the front door; nothing else is proxied", () => {
    const env = selfCheckProxyEnv();
    expect(env.HTTP_PROXY).toBe(`http://${FRONT_DOOR.address}:${FRONT_DOOR.httpPort}`);
    expect(env.http_proxy).toBe(env.HTTP_PROXY);
    // An ambient proxy of this machine must not carry its HTTPS (the ACME directory) anywhere.
    expect([env.HTTPS_PROXY, env.https_proxy, env.NO_PROXY, env.no_proxy]).toEqual(["", "", "", ""]);
    expect(certManagerComponent(layout, tc).env).toEqual(env);
  });

  it("manifests: its namespace, and a ClusterRole bound to its user covering certificates, ACME objects and solver resources", () => {
    const docs = parseAllDocuments(buildCertManagerManifests()).map((d) => d.toJSON());
    expect(docs.map((d) => d.kind)).toEqual(["Namespace", "ClusterRole", "ClusterRoleBinding"]);
    expect(docs[0].metadata.name).toBe(CERT_MANAGER_NAMESPACE);
    const rules = docs[1].rules as { apiGroups: string[]; resources: string[]; verbs: string[] }[];
    const can = (group: string, resource: string, verb: string) =>
      rules.some((r) => r.apiGroups.includes(group) && r.resources.includes(resource) && r.verbs.includes(verb));
    for (const r of ["certificates", "certificaterequests/status", "clusterissuers", "issuers/status"])
      expect(can("cert-manager.io", r, "update"), r).toBe(true);
    for (const r of ["orders", "challenges/status", "challenges/finalizers"])
      expect(can("acme.cert-manager.io", r, "update"), r).toBe(true);
    for (const r of ["secrets", "pods", "services"]) expect(can("", r, "create"), r).toBe(true);
    expect(can("networking.k8s.io", "ingresses", "delete")).toBe(true);
    expect(can("", "events", "create")).toBe(true);
    expect(docs[2].subjects).toEqual([{ kind: "User", name: "platform:cert-manager", apiGroup: "rbac.authorization.k8s.io" }]);
    expect(docs[2].roleRef.name).toBe(docs[1].metadata.name);
  });
});
