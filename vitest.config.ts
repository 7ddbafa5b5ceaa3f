import { configDefaults, defineConfig } from "vitest/config";

// The Kubernetes test cluster's tests need root and a toolchain that builds for about 25
// minutes the first time, which the default set-up does not build: they run only when asked
// (npm run test:kubernetes, or PLATFORM_TEST_KUBERNETES=1).
const kubernetes = process.env.PLATFORM_TEST_KUBERNETES === "1";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: kubernetes ? configDefaults.exclude : [...configDefaults.exclude, "test/integration/cluster.test.ts", "test/integration/kubernetes*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 600_000,
    pool: "forks",
    // Integration tests share one Docker engine and one edge proxy; on 2 cores they run
    // one file at a time, which is also what keeps them deterministic.
    fileParallelism: false,
    sequence: { concurrent: false },
  },
});
