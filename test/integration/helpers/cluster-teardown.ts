import { clusterDown } from "../../../src/test-cluster/cluster.js";
import { buildComponents } from "../../../src/test-cluster/components.js";
import { clusterLayout, readClusterToolchain } from "../../../src/test-cluster/layout.js";
import { runningPid } from "../../../src/test-cluster/processes.js";

/**
 * Vitest's global set-up: the Kubernetes test cluster is left as the run found it. A cluster
 * that a test started (`platform cluster up` in the Kubernetes tests) is stopped when the run
 * ends, so that its processes do not keep using the machine; one that was already running stays.
 */
let wasRunning = false;

/** Any component with a live pid: no health checks or API calls, just the pid files. */
function anyRunning(): boolean {
  const l = clusterLayout();
  const tc = readClusterToolchain();
  return !!tc && buildComponents(l, tc).some((s) => runningPid(l, s) !== undefined);
}

export async function setup(): Promise<void> {
  wasRunning = anyRunning();
}

export async function teardown(): Promise<void> {
  if (!wasRunning && anyRunning()) await clusterDown();
}
