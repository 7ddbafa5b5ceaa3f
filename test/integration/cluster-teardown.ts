import { clusterDown, clusterStatus } from "../../src/cluster/cluster.js";

/**
 * Vitest's global set-up: the Kubernetes test cluster is left as the run found it. A cluster
 * that a test started (`platform cluster up` in the Kubernetes tests) is stopped when the run
 * ends, so that its processes do not keep using the machine; one that was already running stays.
 */
let wasRunning = false;

const anyRunning = async () => (await clusterStatus()).components.some((c) => c.running);

export async function setup(): Promise<void> {
  wasRunning = await anyRunning();
}

export async function teardown(): Promise<void> {
  if (!wasRunning && await anyRunning()) await clusterDown();
}
