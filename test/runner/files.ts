import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { needsCluster } from "../integration/helpers/sequencer.js";

/** The repository's root, and test files named relative to it (test/integration/x.test.ts). */
export const ROOT = resolve(import.meta.dirname, "..", "..");
export const rel = (abs: string) => relative(ROOT, abs);

/** The stages of `npm test`, in order: each fails on its own, with its own time limit. */
export const STAGES = ["unit", "docker", "cluster"] as const;
export type Stage = (typeof STAGES)[number];

/**
 * Files that change what every other file relies on, run with nothing beside them:
 * identity.test.ts removes the engine's shared edge (platform-edge) to show that two first
 * deploys do not remove each other's.
 */
export const SOLO_FILES = new Set([
  "test/integration/identity.test.ts",
  // The test cluster's: cluster.test.ts stops and starts the cluster; kubernetes-nodes adds a
  // node and drains one; the front door tests restart Traefik with other ACME flags;
  // cert-manager's ClusterIssuer is every deploy's default while it exists; the autoscaler's
  // test scales on CPU, which a neighbour's load would take.
  ...[
    "cluster",
    "kubernetes-nodes",
    "kubernetes-front-door",
    "kubernetes-front-door-cluster",
    "kubernetes-cert-manager",
    "kubernetes-autoscale",
  ].map((f) => `test/integration/${f}.test.ts`),
]);

function testFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".test.ts"))
    .map((f) => join(dir, f))
    .sort();
}

/** The files of one stage: the unit tests, the integration tests on the Docker engine, those on the test cluster. */
export function stageFiles(stage: Stage): string[] {
  if (stage === "unit") return testFiles("test/unit");
  return testFiles("test/integration").filter((f) => needsCluster(`/${f}`) === (stage === "cluster"));
}

/** What the last measured run took per file (test/timings.json), to start the longest first. */
export function recordedTimings(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(join(ROOT, "test", "timings.json"), "utf8")) as Record<string, number>;
  } catch {
    return {};
  }
}
