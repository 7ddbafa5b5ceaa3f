import { clusterDown, clusterStatus, clusterUp } from "../test-cluster/cluster.js";
import { printJson } from "./render.js";
import { formatTable } from "./table.js";

/** Progress goes to stderr, so `--json` keeps stdout to one object. */
const progress = (line: string) => process.stderr.write(`  ${line}\n`);

export async function runUp(o: { json?: boolean }): Promise<void> {
  const r = await clusterUp({ progress });
  if (o.json) return printJson(r);
  process.stdout.write(
    r.alreadyRunning
      ? `✓ the test cluster is already running (checked in ${r.seconds.toFixed(1)}s)\n`
      : `✓ the test cluster is up in ${r.seconds.toFixed(1)}s\n`,
  );
  process.stdout.write(`kubeconfig: ${r.kubeconfig}\n  export KUBECONFIG=${r.kubeconfig}\n`);
}

export async function runDown(o: { json?: boolean; purge?: boolean }): Promise<void> {
  const r = await clusterDown({ purge: o.purge, progress });
  if (o.json) return printJson(r);
  process.stdout.write(r.stopped.length ? `✓ stopped ${r.stopped.join(", ")}\n` : "✓ the test cluster was not running\n");
  if (r.purged) process.stdout.write("✓ removed its state, certificates and images\n");
}

export async function runStatus(o: { json?: boolean }): Promise<void> {
  const s = await clusterStatus();
  if (!s.ready) process.exitCode = 1;
  if (o.json) return printJson(s);
  if (!s.toolchain) {
    process.stdout.write(
      "the test cluster's toolchain is not installed: platform cluster up builds it (or npm run setup -- --kubernetes)\n",
    );
    return;
  }
  process.stdout.write(
    formatTable(
      ["COMPONENT", "PID", "STATE"],
      s.components.map((c) => [
        c.name,
        c.pid ? String(c.pid) : "",
        c.healthy ? "healthy" : c.running ? "running, not answering" : "stopped",
      ]),
    ),
  );
  const node = s.node
    ? `${s.node.name}: ${s.node.ready ? "Ready" : s.node.registered ? "NotReady" : "not registered"}${s.node.internalIp ? ` (${s.node.internalIp})` : ""}`
    : "unknown (API server down)";
  process.stdout.write(
    `node: ${node}\ndns: ${s.dns ? (s.dns.ready ? "CoreDNS ready" : "CoreDNS not ready") : "unknown"}\nkubeconfig: ${s.kubeconfig}\n`,
  );
  process.stdout.write(s.ready ? "✓ ready\n" : "✖ not ready (platform cluster up starts what is missing)\n");
}
