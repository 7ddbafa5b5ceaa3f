import { BaseSequencer, type TestSpecification } from "vitest/node";

/** The files that start or use the Kubernetes test cluster. */
export function needsCluster(file: string): boolean {
  return /\/integration\/(kubernetes-[^/]*|cluster)\.test\.ts$/.test(file);
}

/**
 * Vitest's own order, then the cluster's files last, cluster.test.ts (which starts the cluster
 * and has the longest wait for the toolchain) first among them: `npm test` builds the Kubernetes
 * toolchain in the background meanwhile (scripts/test.sh).
 */
export function clusterLast<T>(files: T[], path: (f: T) => string): T[] {
  const rank = (f: T): number => {
    const p = path(f);
    if (!needsCluster(p)) return 0;
    return p.endsWith("/cluster.test.ts") ? 1 : 2;
  };
  // Array.prototype.sort is stable: files of one rank keep vitest's order.
  return [...files].sort((a, b) => rank(a) - rank(b));
}

export default class ClusterLastSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return clusterLast(await super.sort(files), (f) => f.moduleId);
  }
}
