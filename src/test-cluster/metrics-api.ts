import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ComponentSpec } from "./component-spec.js";
import { waitFor } from "./exec.js";
import { kubectl } from "./kubectl.js";
import { type ClusterLayout, type ClusterToolchain, NETWORK } from "./layout.js";
import { buildMetricsServerManifests, METRICS_SERVER } from "./metrics-server.js";
import { logTail } from "./processes.js";

/**
 * After CoreDNS runs (so the bridge, its listening address, exists): its API objects, the
 * process, then the metrics API answering with the node's metrics (its first scrape), so a
 * test's autoscaler or `kubectl top` right after `up` has numbers. Returns what it started.
 */
export async function startMetricsServer(
  l: ClusterLayout,
  tc: ClusterToolchain,
  start: (specs: ComponentSpec[]) => Promise<string[]>,
  specs: ComponentSpec[],
): Promise<string[]> {
  await kubectl(l, tc, ["apply", "-f", "-"], { input: buildMetricsServerManifests(readFileSync(join(l.pki, "ca.crt"), "utf8")) });
  const started = await start(specs);
  await waitFor(
    "the metrics API (metrics-server) to serve the node's metrics",
    async () => {
      const r = await kubectl(l, tc, ["get", "--raw", "/apis/metrics.k8s.io/v1beta1/nodes"], { allowFail: true });
      return r.code === 0 && r.stdout.includes(`"name":"${NETWORK.nodeName}"`) ? true : undefined;
    },
    { timeoutMs: 120_000, everyMs: 2000, onTimeout: () => logTail(l, METRICS_SERVER) },
  );
  return started;
}
