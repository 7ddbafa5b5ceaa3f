import * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import { publicHost } from "../../plan/naming.js";
import type { FrontDoor, Plan, PlannedService } from "../../plan/types.js";

/**
 * Public services through the cluster's own front door: one standard `Ingress` per public
 * service, which any conformant ingress controller serves at the cluster's public address. No
 * part of the path runs on this machine. Pure spec builders first (unit-tested as plain objects).
 */

/** cert-manager's ingress-shim makes a Certificate for each `tls` entry of an Ingress with this annotation. */
export const CLUSTER_ISSUER_ANNOTATION = "cert-manager.io/cluster-issuer";

/** The Secret a host's certificate goes into (cert-manager): one per host, so a failing domain never blocks another. */
export function tlsSecretName(s: Pick<PlannedService, "name">, index: number): string {
  return index === 0 ? `${s.name}-tls` : `${s.name}-d${index}-tls`;
}

/** Every host a public service answers: its platform host, then its custom domains. */
export function ingressHosts(s: Pick<PlannedService, "hostPrefix" | "domains">, words: string, appsDomain: string): string[] {
  return [publicHost(s.hostPrefix, words, appsDomain), ...s.domains];
}

/**
 * The Ingress's spec: one rule per host to the service's Service and port, and TLS for each
 * host. Without a ClusterIssuer a `tls` entry names no Secret: the controller serves the host
 * with a certificate of its own (its ACME resolver, or its default one).
 */
export function ingressSpec(
  s: Pick<PlannedService, "name" | "port">,
  hosts: readonly string[],
  door: FrontDoor,
): k8s.types.input.networking.v1.IngressSpec {
  const backend = { service: { name: s.name, port: { number: s.port } } };
  return {
    ...(door.className ? { ingressClassName: door.className } : {}),
    rules: hosts.map((host) => ({ host, http: { paths: [{ path: "/", pathType: "Prefix", backend }] } })),
    tls: hosts.map((host, i) => ({ hosts: [host], ...(door.clusterIssuer ? { secretName: tlsSecretName(s, i) } : {}) })),
  };
}

export function ingressAnnotations(door: FrontDoor): Record<string, string> {
  return door.clusterIssuer ? { [CLUSTER_ISSUER_ANNOTATION]: door.clusterIssuer } : {};
}

/**
 * A public service's Ingress, named as the service. Pulumi waits until the controller has
 * written the Ingress's address into its status: a class no controller serves fails the deploy
 * there, with the provider's words.
 */
export function createIngress(
  plan: Plan,
  s: PlannedService,
  door: FrontDoor,
  words: pulumi.Output<string>,
  meta: { namespace: string; labels: Record<string, string> },
  opts: pulumi.CustomResourceOptions,
): k8s.networking.v1.Ingress {
  return new k8s.networking.v1.Ingress(
    `${s.name}-ingress`,
    {
      metadata: { name: s.name, namespace: meta.namespace, labels: meta.labels, annotations: ingressAnnotations(door) },
      spec: words.apply((w) => ingressSpec(s, ingressHosts(s, w, plan.appsDomain), door)),
    },
    opts,
  );
}

/** The front door's address as the controller reports it (an IP, or a load balancer's host name). */
export function frontDoorAddress(ingress: k8s.networking.v1.Ingress): pulumi.Output<string> {
  return ingress.status.apply((st) => {
    const first = st?.loadBalancer?.ingress?.[0];
    return first?.ip ?? first?.hostname ?? "";
  });
}
