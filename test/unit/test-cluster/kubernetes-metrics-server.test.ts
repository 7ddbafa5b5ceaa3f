import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { buildComponents } from "../../../src/test-cluster/components.js";
import { clusterLayout, type ClusterToolchain, NETWORK } from "../../../src/test-cluster/layout.js";
import { buildMetricsServerManifests, METRICS_SERVER_PORT } from "../../../src/test-cluster/metrics-server.js";
import { buildCertSpecs } from "../../../src/test-cluster/pki.js";
import { certManagerToolchain } from "./toolchain-fixture.js";

const layout = clusterLayout("/home/u/.platform");
const tc = {
  binDir: "/tc/bin",
  metricsServer: "/tc/metrics-server/bin/metrics-server",
  certManager: certManagerToolchain,
} as ClusterToolchain;
const specs = buildComponents(layout, tc);
const args = (name: string) => specs.find((s) => s.name === name)?.args ?? [];

describe("the test cluster's metrics-server", () => {
  it("runs from the toolchain on the bridge gateway, scraping the kubelet at its InternalIP with the cluster CA", () => {
    const ms = specs.find((s) => s.name === "metrics-server");
    expect(ms?.command).toBe("/tc/metrics-server/bin/metrics-server");
    expect(ms?.args).toEqual(
      expect.arrayContaining([
        `--bind-address=${NETWORK.bridgeGateway}`,
        `--secure-port=${METRICS_SERVER_PORT}`,
        "--kubelet-preferred-address-types=InternalIP",
        "--kubelet-certificate-authority=/home/u/.platform/cluster/pki/ca.crt",
        "--kubeconfig=/home/u/.platform/cluster/kubeconfig/metrics-server.yaml",
      ]),
    );
    expect(ms?.args.join(" ")).not.toContain("insecure");
    expect(ms?.health).toEqual({ kind: "https-insecure", url: `https://${NETWORK.bridgeGateway}:${METRICS_SERVER_PORT}/livez` });
  });

  it("the API server aggregates: a front-proxy client, trusted header names, routing to endpoints", () => {
    expect(args("kube-apiserver")).toEqual(
      expect.arrayContaining([
        "--proxy-client-cert-file=/home/u/.platform/cluster/pki/front-proxy-client.crt",
        "--requestheader-allowed-names=front-proxy-client",
        "--requestheader-client-ca-file=/home/u/.platform/cluster/pki/ca.crt",
        "--enable-aggregator-routing=true",
      ]),
    );
  });

  it("certificates: metrics-server serves under its Service's name and the gateway, and is a client", () => {
    const ms = buildCertSpecs().find((c) => c.name === "metrics-server");
    expect(ms).toMatchObject({ cn: "system:metrics-server", usage: "both" });
    expect(ms?.dns).toContain("metrics-server.kube-system.svc");
    expect(ms?.ips).toContain(NETWORK.bridgeGateway);
    expect(buildCertSpecs().find((c) => c.name === "front-proxy-client")).toMatchObject({ cn: "front-proxy-client", usage: "client" });
  });

  it("manifests: an APIService for v1beta1.metrics.k8s.io, verified by the CA, over a selector-less Service to the host", () => {
    const docs = parseAllDocuments(buildMetricsServerManifests("CA-PEM")).map((d) => d.toJSON());
    const api = docs.find((d) => d.kind === "APIService");
    expect(api.metadata.name).toBe("v1beta1.metrics.k8s.io");
    expect(api.spec).toMatchObject({
      group: "metrics.k8s.io",
      version: "v1beta1",
      service: { name: "metrics-server", namespace: "kube-system", port: 443 },
    });
    expect(Buffer.from(api.spec.caBundle, "base64").toString()).toBe("CA-PEM");
    expect(api.spec.insecureSkipTLSVerify).toBeUndefined();
    const svc = docs.find((d) => d.kind === "Service");
    expect(svc.spec.selector).toBeUndefined();
    expect(docs.find((d) => d.kind === "Endpoints").subsets).toEqual([
      { addresses: [{ ip: NETWORK.bridgeGateway }], ports: [{ name: "https", port: METRICS_SERVER_PORT, protocol: "TCP" }] },
    ]);
    const bound = docs.filter((d) => d.kind.endsWith("Binding")).map((d) => d.roleRef.name);
    expect(bound).toEqual(["system:metrics-server", "system:auth-delegator", "extension-apiserver-authentication-reader"]);
  });
});
