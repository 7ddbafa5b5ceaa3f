import type { Command } from "commander";
import { printJson } from "./render.js";
import { formatTable } from "./table.js";

/**
 * `platform cluster up|down|status`: a single-node Kubernetes test cluster on this machine
 * (README "Kubernetes"). Progress goes to stderr, so `--json` keeps stdout to one object.
 */
const progress = (line: string) => process.stderr.write(`  ${line}\n`);

async function runUp(o: { json?: boolean }): Promise<void> {
  const { clusterUp } = await import("../test-cluster/cluster.js");
  const r = await clusterUp({ progress });
  if (o.json) return printJson(r);
  process.stdout.write(r.alreadyRunning
    ? `✓ the test cluster is already running (checked in ${r.seconds.toFixed(1)}s)\n`
    : `✓ the test cluster is up in ${r.seconds.toFixed(1)}s\n`);
  process.stdout.write(`kubeconfig: ${r.kubeconfig}\n  export KUBECONFIG=${r.kubeconfig}\n`);
}

async function runDown(o: { json?: boolean; purge?: boolean }): Promise<void> {
  const { clusterDown } = await import("../test-cluster/cluster.js");
  const r = await clusterDown({ purge: o.purge, progress });
  if (o.json) return printJson(r);
  process.stdout.write(r.stopped.length ? `✓ stopped ${r.stopped.join(", ")}\n` : "✓ the test cluster was not running\n");
  if (r.purged) process.stdout.write("✓ removed its state, certificates and images\n");
}

async function runStatus(o: { json?: boolean }): Promise<void> {
  const { clusterStatus } = await import("../test-cluster/cluster.js");
  const s = await clusterStatus();
  if (!s.ready) process.exitCode = 1;
  if (o.json) return printJson(s);
  if (!s.toolchain) {
    process.stdout.write("the test cluster's toolchain is not installed: platform cluster up builds it (or npm run setup -- --kubernetes)\n");
    return;
  }
  process.stdout.write(formatTable(["COMPONENT", "PID", "STATE"], s.components.map((c) => [c.name, c.pid ? String(c.pid) : "", c.healthy ? "healthy" : c.running ? "running, not answering" : "stopped"])));
  const node = s.node ? `${s.node.name}: ${s.node.ready ? "Ready" : s.node.registered ? "NotReady" : "not registered"}${s.node.internalIp ? ` (${s.node.internalIp})` : ""}` : "unknown (API server down)";
  process.stdout.write(`node: ${node}\ndns: ${s.dns ? (s.dns.ready ? "CoreDNS ready" : "CoreDNS not ready") : "unknown"}\nkubeconfig: ${s.kubeconfig}\n`);
  process.stdout.write(s.ready ? "✓ ready\n" : "✖ not ready (platform cluster up starts what is missing)\n");
}

export function registerCluster(program: Command): void {
  const cluster = program.command("cluster")
    .description("a single-node Kubernetes test cluster on this machine (needs root; builds its toolchain the first time)");
  cluster.command("up")
    .description("start the test cluster (or what is missing of it) and print its kubeconfig path")
    .option("--json", "machine-readable output")
    .action(runUp);
  cluster.command("down")
    .description("stop every component and pod; the cluster's state stays for the next up")
    .option("--purge", "also remove its state, certificates and images")
    .option("--json", "machine-readable output")
    .action(runDown);
  cluster.command("status")
    .description("each component, the node and DNS (exit 1 when not ready)")
    .option("--json", "machine-readable output")
    .action(runStatus);
}
