import type { Command } from "commander";

/** The subcommands' work, loaded only when one runs: `--help` stays light. */
const work = () => import("./cluster-action.js");

/** `platform cluster up|down|status`: a Kubernetes test cluster of one node or more on this machine (docs/guide/kubernetes.md, docs/internals/test-cluster.md). */
export function registerCluster(program: Command): void {
  const cluster = program
    .command("cluster")
    .description("a Kubernetes test cluster on this machine, of one node or more (needs root; builds its toolchain the first time)");
  cluster
    .command("up")
    .description("start the test cluster (or what is missing of it) and print its kubeconfig path")
    .option("--json", "machine-readable output")
    .option("--acme-ca <url>", "the ACME directory its ingress controller (Traefik) gets certificates from; kept for later ups")
    .option("--acme-ca-root <pem-file>", "a CA that signs the ACME directory's HTTPS, when the system's do not")
    .option("--acme-email <address>", "the ACME account's e-mail (needed with --acme-ca)")
    .option("--acme-off", "forget the ACME directory: the ingress controller serves its default certificate")
    .option(
      "--nodes <n>",
      "how many nodes (1-4): each further node is a kubelet with its own containerd in a network namespace; kept for later ups",
    )
    .action(async (o) => (await work()).runUp(o));
  cluster
    .command("down")
    .description("stop every component and pod; the cluster's state stays for the next up")
    .option("--purge", "also remove its state, certificates and images")
    .option("--json", "machine-readable output")
    .action(async (o) => (await work()).runDown(o));
  cluster
    .command("status")
    .description("each component, the node and DNS (exit 1 when not ready)")
    .option("--json", "machine-readable output")
    .action(async (o) => (await work()).runStatus(o));
}
