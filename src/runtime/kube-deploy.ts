import { ExitCode, usageError, VisibleError } from "../errors.js";
import { DEFAULT_HTTPS_PORT } from "../plan/constants.js";
import { namespaceName } from "../plan/naming.js";
import type { Plan } from "../plan/types.js";
import { foreignOwner } from "../provider/contract/labels.js";
import { FRONT_DOOR } from "../test-cluster/layout.js";
import { prepareScaling } from "./kube-handover.js";
import { type IngressClassInfo, type KubeCluster, kubeClusterIssuers, kubeIngressClasses, kubeNamespaceLabels } from "./kubernetes.js";
import type { DeployPreparation, FrontDoorRequest, Given, PreparedDeploy } from "./target-runtime.js";

/**
 * A deploy to a Kubernetes cluster, before the engine starts: a namespace of another stack is
 * refused, the way in is chosen from what the cluster offers, and scaled services' counts are
 * handed over (kube-handover.ts).
 */

/**
 * A stack's namespace is `<project>-<env>`, so two stacks can name the same one (project `a-b`
 * in `c`, project `a` in `b-c`). The Kubernetes provider adopts an existing namespace, and a
 * destroy would then delete the other stack's objects with it: a namespace whose labels name
 * another stack, or no stack at all, is refused before anything is built.
 */
async function refuseForeignNamespace(kube: KubeCluster, plan: Plan): Promise<void> {
  const namespace = namespaceName(plan);
  // An unreachable cluster is the deploy's to report, with the provider's own words.
  const labels = await kubeNamespaceLabels(kube, namespace).catch(() => undefined);
  const owner = foreignOwner(labels, kube.project, kube.env);
  if (!owner) return;
  throw new VisibleError(
    `the Kubernetes namespace ${namespace} of ${kube.project} (${kube.env}) already exists and belongs to ${owner}; nothing was deployed`,
    {
      exitCode: ExitCode.failed,
      details: [
        "  hint: deploy under another project name (--project NAME) or environment (--env NAME), or point --kubeconfig at another cluster",
      ],
    },
  );
}

/**
 * Between `replicas:` and `scale:` (kube-handover.ts): a scaled service's count that Pulumi set is
 * handed over first, so the deploy does not drop it to one pod; an autoscaler no longer wanted is
 * removed first, so that it cannot raise the new count while the deploy runs.
 */
async function handOverScaledReplicas(kube: KubeCluster, plan: Plan, progress: (line: string) => void): Promise<void> {
  const services = plan.services.map((s) => ({ name: s.name, scaled: s.scale !== undefined }));
  // An unreachable cluster is the deploy's to report, with the provider's own words.
  const done = await prepareScaling(kube, namespaceName(plan), services).catch(() => undefined);
  for (const h of done?.handed ?? []) progress(`${h} replicas kept for the autoscaler`);
  for (const name of done?.removed ?? []) progress(`${name}: autoscaler removed before its replicas are set`);
}

/** The class to use: the one named, else the cluster's default, else its only one. */
export function chooseIngressClass(classes: readonly IngressClassInfo[], named: Given): string | undefined {
  const names = classes.map((c) => c.name);
  if (named.value !== undefined) {
    if (names.includes(named.value)) return named.value;
    throw usageError(
      `${named.source}: the cluster has no IngressClass "${named.value}"${names.length ? ` (it has ${names.join(", ")})` : ""}`,
      "name one of the cluster's classes (kubectl get ingressclass), or install its ingress controller first",
    );
  }
  const defaults = classes.filter((c) => c.isDefault);
  if (defaults.length === 1) return defaults[0]!.name;
  if (classes.length === 1) return classes[0]!.name;
  if (classes.length > 1)
    throw usageError(
      `the cluster has several IngressClasses (${names.join(", ")}) and no single default`,
      "choose one with --ingress-class NAME (env PLATFORM_INGRESS_CLASS)",
    );
  return undefined;
}

/** A ClusterIssuer named, else the cluster's only one; a named one must exist. */
export function chooseIssuer(issuers: readonly string[], named: Given, notes: string[]): string | undefined {
  if (named.value !== undefined) {
    if (issuers.includes(named.value)) return named.value;
    throw usageError(
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

const localDomain = (d: string) => d === "localhost" || d.endsWith(".localhost");

/**
 * How the stack's public services are reached: through the cluster's own ingress controller
 * (the front door), or through the edge on this machine (the shortcut for a test cluster without
 * DNS). `auto` takes the edge for a localhost apps domain (no DNS can point at a cluster there),
 * else the cluster's ingress class when it has one, else the edge with a note. Kept as a stack
 * setting: the program only reads it, so a plain `pulumi preview` stays deterministic.
 */
async function chooseFrontDoor(
  kube: KubeCluster,
  r: FrontDoorRequest,
  appsDomain: string,
  testCluster: boolean,
): Promise<Omit<PreparedDeploy, "notes"> & { notes: string[] }> {
  const chosen = r.mode.value ?? "auto";
  if (chosen === "edge" || (chosen === "auto" && localDomain(appsDomain))) return { frontDoor: null, notes: [] };
  if (localDomain(appsDomain))
    throw usageError(
      `${r.mode.source}: the cluster's ingress needs an apps domain that is a DNS name, not ${appsDomain}`,
      "set --apps-domain (PLATFORM_APPS_DOMAIN) to a domain whose wildcard record points at the cluster's ingress address",
    );
  const notes: string[] = [];
  const className = chooseIngressClass(await kubeIngressClasses(kube), r.ingressClass);
  if (!className) {
    if (chosen === "ingress")
      throw usageError(
        "the cluster has no IngressClass: no ingress controller serves it",
        "install one (Traefik, ingress-nginx...), or deploy with --front-door edge",
      );
    notes.push(
      `the cluster has no IngressClass: public services come in through this machine's edge (install an ingress controller to serve them from the cluster)`,
    );
    return { frontDoor: null, notes };
  }
  const clusterIssuer = chooseIssuer(await kubeClusterIssuers(kube), r.clusterIssuer, notes);
  // The test cluster's controller listens on loopback beside this machine's edge, on a port of its own.
  const httpsPort = r.httpsPortGiven ? undefined : testCluster ? FRONT_DOOR.httpsPort : DEFAULT_HTTPS_PORT;
  return {
    frontDoor: { kind: "ingress", className, ...(clusterIssuer ? { clusterIssuer } : {}) },
    ...(httpsPort !== undefined ? { httpsPort } : {}),
    notes,
  };
}

/** Everything a Kubernetes deploy does before the engine starts. */
export async function prepareKubeDeploy(kube: KubeCluster, testCluster: boolean, p: DeployPreparation): Promise<PreparedDeploy> {
  await refuseForeignNamespace(kube, p.plan);
  const door = await chooseFrontDoor(kube, p.frontDoor, p.plan.appsDomain, testCluster);
  await handOverScaledReplicas(kube, p.plan, p.progress);
  // The cluster's images are built on this machine's engine.
  await p.ensureBaseImages(false);
  return door;
}
