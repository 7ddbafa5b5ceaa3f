import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { clusterLayout } from "../../../src/test-cluster/layout.js";

/** The id of this vitest run, set by the global set-up (cluster-teardown.ts) and inherited by its workers. */
export const RUN_ID_VAR = "PLATFORM_TEST_RUN_ID";

/** Which test run started the cluster that runs now (written only when a test's `up` started it). */
export function startedByFile(): string {
  return join(dirname(clusterLayout().logs), "started-by-test-run");
}

/**
 * After `platform cluster up --json`: when it really started the cluster, this run's teardown
 * stops it. Only the front door restarted (its ACME flags changed) is not starting the cluster.
 */
export function noteClusterStarted(upJson: string): void {
  const id = process.env[RUN_ID_VAR];
  const up = JSON.parse(upJson) as { alreadyRunning: boolean; started?: string[] };
  const startedCluster = !up.alreadyRunning && (up.started ?? []).some((name) => name !== "traefik");
  if (id && startedCluster) writeFileSync(startedByFile(), `${id}\n`);
}
