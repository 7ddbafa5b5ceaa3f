import { defineConfig } from "vitest/config";
import ClusterLastSequencer from "./test/integration/helpers/sequencer.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The Kubernetes test cluster, when a test started it, is stopped at the end of the run; the
    // tests' file backends are removed then too.
    globalSetup: ["test/integration/helpers/cluster-teardown.ts", "test/integration/helpers/state-root.ts"],
    // The cluster's tests last: npm test builds the Kubernetes toolchain meanwhile (scripts/test.sh).
    sequence: { concurrent: false, sequencer: ClusterLastSequencer },
    testTimeout: 30_000,
    hookTimeout: 600_000,
    pool: "forks",
    // Integration tests share one Docker engine and one edge proxy; on 2 cores they run
    // one file at a time, which is also what keeps them deterministic.
    fileParallelism: false,
  },
});
