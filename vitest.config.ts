import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The Kubernetes test cluster, when a test started it, is stopped at the end of the run.
    globalSetup: ["test/integration/helpers/cluster-teardown.ts"],
    testTimeout: 30_000,
    hookTimeout: 600_000,
    pool: "forks",
    // Integration tests share one Docker engine and one edge proxy; on 2 cores they run
    // one file at a time, which is also what keeps them deterministic.
    fileParallelism: false,
    sequence: { concurrent: false },
  },
});
