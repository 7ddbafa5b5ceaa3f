import type { Command } from "commander";
import { stackOptions } from "./stack-options.js";

export function registerDeploy(program: Command): void {
  stackOptions(program.command("deploy"))
    .description("build, migrate, start and serve every service of platform.yml on the local Docker engine")
    .option("-y, --yes", "create the project without asking (CI)")
    .option("--dry-run", "say what a deploy would do and change nothing (same as platform plan)")
    .option("--from <env>", "start this new environment with a copy of another environment's databases (that one is only read)")
    .option(
      "--expires <duration>",
      "remove this environment with its data after 90m, 12h, 7d, 2w... (the next platform command or Studio does it); never clears it",
    )
    .option("--apps-domain <domain>", "base domain of public URLs (env PLATFORM_APPS_DOMAIN)", undefined)
    .option("--https-port <port>", "port of the HTTPS edge (env PLATFORM_HTTPS_PORT; default 443)")
    .option(
      "--edge <mode>",
      "local (127.0.0.1, the platform's own CA) or public (every interface, ACME certificates; PLATFORM_ACME_EMAIL, PLATFORM_ACME_CA, PLATFORM_ACME_CA_ROOT, PLATFORM_HTTP_PORT); remembered per engine (env PLATFORM_EDGE)",
    )
    .option("--target <name>", "where the stack runs: docker or kubernetes (env PLATFORM_TARGET; kept per environment; default docker)")
    .option(
      "--kubeconfig <path>",
      "the Kubernetes target's cluster (env PLATFORM_KUBECONFIG; kept per environment; default KUBECONFIG, the test cluster, ~/.kube/config)",
    )
    .option(
      "--registry <host[:port][/path]>",
      "where the Kubernetes target pushes images for the cluster to pull (env PLATFORM_REGISTRY; kept per environment; default: imported into the test cluster)",
    )
    .option(
      "--front-door <mode>",
      "Kubernetes: how public services are reached: auto (the cluster's ingress when it has one and the apps domain is a DNS name), ingress, or edge (this machine's edge) (env PLATFORM_FRONT_DOOR)",
    )
    .option(
      "--ingress-class <name>",
      "Kubernetes: the IngressClass of public services (env PLATFORM_INGRESS_CLASS; default: the cluster's default class)",
    )
    .option(
      "--cluster-issuer <name>",
      "Kubernetes: the cert-manager ClusterIssuer of their certificates (env PLATFORM_CLUSTER_ISSUER; default: the cluster's only one, else the ingress controller's own)",
    )
    .action(async (o) => (await import("./deploy-action.js")).runDeploy(o));
}
