import { existsSync, readFileSync, rmSync } from "node:fs";
import { clusterDown } from "../../../src/test-cluster/cluster.js";
import { RUN_ID_VAR, startedByFile } from "./cluster-marker.js";

/**
 * Vitest's global set-up: the Kubernetes test cluster is left as the run found it. A cluster
 * that one of this run's tests started (helpers/kubernetes.ts clusterUp, which writes the run's
 * id into a marker when its `up` really started it) is stopped when the run ends, so that its
 * processes do not keep using the machine. A cluster that was already running, or that another
 * run (a second vitest beside this one) or a person started meanwhile, stays.
 */
export async function setup(): Promise<void> {
  // npm test's cluster stage names the run itself (test/runner/stage.ts): its files run in
  // vitest processes of their own, side by side, and the stage stops the cluster once, at its end.
  process.env[RUN_ID_VAR] ??= `${process.pid}-${Date.now()}`;
}

/** Set by npm test's cluster stage: it stops the cluster itself, after its last file. */
export const STAGE_STOPS_CLUSTER_VAR = "PLATFORM_TEST_STAGE_STOPS_CLUSTER";

export async function teardown(): Promise<void> {
  if (process.env[STAGE_STOPS_CLUSTER_VAR] === "1") return;
  await stopClusterStartedByRun();
}

/** Stops the cluster when this run's tests started it (the marker holds the run's id). */
export async function stopClusterStartedByRun(): Promise<void> {
  const marker = startedByFile();
  if (!existsSync(marker) || readFileSync(marker, "utf8").trim() !== process.env[RUN_ID_VAR]) return;
  rmSync(marker, { force: true });
  await clusterDown();
}
