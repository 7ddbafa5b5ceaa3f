import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { awaitKubernetesToolchain } from "../../integration/helpers/kubernetes-toolchain.js";
import { clusterLast, needsCluster } from "../../integration/helpers/sequencer.js";

describe("the test run's order: the cluster's tests last", () => {
  it("knows the files that use the cluster", () => {
    expect(needsCluster("/r/test/integration/kubernetes-nodes.test.ts")).toBe(true);
    expect(needsCluster("/r/test/integration/cluster.test.ts")).toBe(true);
    expect(needsCluster("/r/test/integration/public-edge.test.ts")).toBe(false);
    expect(needsCluster("/r/test/unit/test-cluster/processes.test.ts")).toBe(false);
    expect(needsCluster("/r/test/unit/cli/kubernetes-flags.test.ts")).toBe(false);
  });

  it("keeps vitest's order otherwise, and starts the cluster's group with cluster.test.ts", () => {
    const files = [
      "/r/test/integration/kubernetes-nodes.test.ts",
      "/r/test/integration/deploy.test.ts",
      "/r/test/integration/cluster.test.ts",
      "/r/test/unit/config.test.ts",
      "/r/test/integration/kubernetes-studio.test.ts",
      "/r/test/integration/studio.test.ts",
    ];
    expect(clusterLast(files, (f) => f).map((f) => f.split("/").pop())).toEqual([
      "deploy.test.ts",
      "config.test.ts",
      "studio.test.ts",
      "cluster.test.ts",
      "kubernetes-nodes.test.ts",
      "kubernetes-studio.test.ts",
    ]);
  });
});

describe("waiting for the Kubernetes toolchain's background build", () => {
  const dir = mkdtempSync(join(tmpdir(), "platform-k8s-rc-"));

  it("returns at once when no build was started", async () => {
    await expect(awaitKubernetesToolchain("")).resolves.toBeUndefined();
  });

  it("waits for the exit code, and passes on 0", async () => {
    const rc = join(dir, "ok.rc");
    const started = Date.now();
    setTimeout(() => writeFileSync(rc, "0\n"), 300);
    await awaitKubernetesToolchain(rc, 50, 0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it("fails at once, with the build's log, when the build's process died without an exit code", async () => {
    const rc = join(dir, "dead.rc");
    writeFileSync(join(dir, "dead.log"), "building kube-apiserver\n");
    const gone = spawnSync("true").pid as number; // a process that has ended
    const started = Date.now();
    await expect(awaitKubernetesToolchain(rc, 50, gone)).rejects.toThrow(/ended without an exit code;[\s\S]*building kube-apiserver/);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("fails with the build's log on another exit code", async () => {
    const rc = join(dir, "setup-kubernetes.rc");
    writeFileSync(join(dir, "setup-kubernetes.log"), "step 1 ok\n✖ go build failed: no space left on device\n");
    writeFileSync(rc, "3\n");
    await expect(awaitKubernetesToolchain(rc, 50, 0)).rejects.toThrow(/exited 3;[\s\S]*no space left on device/);
  });
});
