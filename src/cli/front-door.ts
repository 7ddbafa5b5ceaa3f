import { DEFAULT_HTTPS_PORT } from "../plan/constants.js";
import type { FrontDoor } from "../plan/types.js";
import { type IngressClassInfo, kubeClusterIssuers, kubeIngressClasses } from "../runtime/kubernetes.js";
import { kubernetesCluster } from "../test-cluster/kubeconfig.js";
import { FRONT_DOOR } from "../test-cluster/layout.js";
import { pick, usage } from "./edge-flags.js";

/**
 * How a Kubernetes stack's public services are reached: through the cluster's own ingress
 * controller (the front door), or through the edge on this machine (the shortcut for a test
 * cluster without DNS). Chosen here, from what the cluster offers, and kept as a stack setting:
 * the program only reads that setting, so a plain `pulumi preview` stays deterministic.
 */
export interface FrontDoorFlags {
  frontDoor?: string;
  ingressClass?: string;
  clusterIssuer?: string;
}

export interface FrontDoorChoice {
  /** null: the edge on this machine. */
  readonly frontDoor: FrontDoor | null;
  /** The HTTPS port public URLs carry, when the front door decides it. */
  readonly httpsPort?: number;
  readonly notes: string[];
}

const MODES = ["auto", "ingress", "edge"] as const;

const localDomain = (d: string) => d === "localhost" || d.endsWith(".localhost");

/** The class to use: the one named, else the cluster's default, else its only one. */
export function chooseIngressClass(classes: readonly IngressClassInfo[], named: { value?: string; source: string }): string | undefined {
  const names = classes.map((c) => c.name);
  if (named.value !== undefined) {
    if (names.includes(named.value)) return named.value;
    throw usage(
      `${named.source}: the cluster has no IngressClass "${named.value}"${names.length ? ` (it has ${names.join(", ")})` : ""}`,
      "name one of the cluster's classes (kubectl get ingressclass), or install its ingress controller first",
    );
  }
  const defaults = classes.filter((c) => c.isDefault);
  if (defaults.length === 1) return defaults[0]!.name;
  if (classes.length === 1) return classes[0]!.name;
  if (classes.length > 1)
    throw usage(
      `the cluster has several IngressClasses (${names.join(", ")}) and no single default`,
      "choose one with --ingress-class NAME (env PLATFORM_INGRESS_CLASS)",
    );
  return undefined;
}

/** A ClusterIssuer named, else the cluster's only one; a named one must exist. */
export function chooseIssuer(issuers: readonly string[], named: { value?: string; source: string }, notes: string[]): string | undefined {
  if (named.value !== undefined) {
    if (issuers.includes(named.value)) return named.value;
    throw usage(
      `${named.source}: the cluster has no cert-manager ClusterIssuer "${named.value}"${issuers.length ? ` (it has ${issuers.join(", ")})` : ""}`,
      "name an existing ClusterIssuer (kubectl get clusterissuer), or leave it out to let the ingress controller provide certificates",
    );
  }
  if (issuers.length === 1) return issuers[0];
  if (issuers.length > 1)
    notes.push(
      `the cluster has several cert-manager ClusterIssuers (${issuers.join(", ")}): none chosen, the ingress controller's own certificates serve; choose one with --cluster-issuer`,
    );
  return undefined;
}

/**
 * --front-door auto|ingress|edge (PLATFORM_FRONT_DOOR; default auto), --ingress-class
 * (PLATFORM_INGRESS_CLASS), --cluster-issuer (PLATFORM_CLUSTER_ISSUER). `auto` takes the edge for
 * a localhost apps domain (no DNS can point at a cluster there), else the cluster's ingress
 * class when it has one, else the edge with a note.
 */
export async function resolveFrontDoor(
  o: FrontDoorFlags & { httpsPort?: string },
  env: NodeJS.ProcessEnv,
  stack: { project: string; env: string },
  where: { target: string; kubeconfig?: string },
  appsDomain: string,
): Promise<FrontDoorChoice> {
  const mode = pick(o.frontDoor, "--front-door", env, "PLATFORM_FRONT_DOOR");
  if (mode.value !== undefined && !(MODES as readonly string[]).includes(mode.value))
    throw usage(`${mode.source}: "${mode.value}" is not a front door`, "use auto (the default), ingress or edge");
  const kube = where.target === "kubernetes";
  if (!kube) {
    if (mode.value === "ingress")
      throw usage(`${mode.source}: ingress is for the Kubernetes target`, "add --target kubernetes, or leave it out");
    return { frontDoor: null, notes: [] };
  }
  const chosen = mode.value ?? "auto";
  if (chosen === "edge" || (chosen === "auto" && localDomain(appsDomain))) return { frontDoor: null, notes: [] };
  if (localDomain(appsDomain))
    throw usage(
      `${mode.source}: the cluster's ingress needs an apps domain that is a DNS name, not ${appsDomain}`,
      "set --apps-domain (PLATFORM_APPS_DOMAIN) to a domain whose wildcard record points at the cluster's ingress address",
    );
  const cluster = kubernetesCluster(where.kubeconfig);
  const t = { ...stack, kubeconfig: cluster.kubeconfig };
  const notes: string[] = [];
  const className = chooseIngressClass(await kubeIngressClasses(t), pick(o.ingressClass, "--ingress-class", env, "PLATFORM_INGRESS_CLASS"));
  if (!className) {
    if (chosen === "ingress")
      throw usage(
        "the cluster has no IngressClass: no ingress controller serves it",
        "install one (Traefik, ingress-nginx...), or deploy with --front-door edge",
      );
    notes.push(
      `the cluster has no IngressClass: public services come in through this machine's edge (install an ingress controller to serve them from the cluster)`,
    );
    return { frontDoor: null, notes };
  }
  const clusterIssuer = chooseIssuer(
    await kubeClusterIssuers(t),
    pick(o.clusterIssuer, "--cluster-issuer", env, "PLATFORM_CLUSTER_ISSUER"),
    notes,
  );
  const portGiven = pick(o.httpsPort, "--https-port", env, "PLATFORM_HTTPS_PORT").value !== undefined;
  // The test cluster's controller listens on loopback beside this machine's edge, on a port of its own.
  const httpsPort = portGiven ? undefined : cluster.testCluster ? FRONT_DOOR.httpsPort : DEFAULT_HTTPS_PORT;
  return {
    frontDoor: { kind: "ingress", className, ...(clusterIssuer ? { clusterIssuer } : {}) },
    ...(httpsPort !== undefined ? { httpsPort } : {}),
    notes,
  };
}
