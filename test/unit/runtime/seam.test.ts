import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The runtime seam (src/runtime/target-runtime.ts): callers act on a stack through the
 * TargetRuntime that runtimeOf chooses, never by asking which target it is. This check finds
 * the ways a caller used to ask (`kube ? a : b`, `target === "kubernetes"`, a database host
 * that is a pod) anywhere but in the places that choose. A new place that must choose is added
 * to ALLOWED with its reason, never around the check.
 */
const ROOT = join(import.meta.dirname, "..", "..", "..");
const SRC = join(ROOT, "src");

/** Where choosing by target is the job: the seam's implementations and factory, the targets, the program, the provider. */
const CHOOSERS =
  /^src\/(runtime\/(runtime-of|docker-target|kubernetes-target|kube-[a-z-]+|kubernetes[a-z-]*)\.ts|targets\/|test-cluster\/|provider\/)/;

const BRANCH =
  /\bkube\s*\?|\bkube\s*&&|if \(!?kube\b|target\s*[!=]==?\s*"(kubernetes|docker)"|kubeClusterOf|keptKubeCluster|typeof [a-zA-Z.]*host [!=]==? "string"/;

/** Each remaining place, by file and what it decides, with why it may. */
const ALLOWED: Record<string, { count: number; why: string }> = {
  "src/runtime/pg-exec.ts": { count: 2, why: "a database host is a container or a pod: the one place the exec argv is chosen" },
  "src/engine/stack-ops.ts": { count: 1, why: "reads the stack's target setting into the place runtimeOf chooses from" },
  "src/pulumi-program.ts": { count: 1, why: "the program chooses the target that turns the plan into resources" },
  "src/cli/stack-flags.ts": { count: 1, why: "checks that --target names a target" },
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : [];
  });
}

describe("the runtime seam", () => {
  const found = new Map<string, string[]>();
  for (const file of files(SRC)) {
    const rel = relative(ROOT, file);
    if (CHOOSERS.test(rel)) continue;
    const lines = readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => BRANCH.test(l));
    if (lines.length) found.set(rel, lines);
  }

  it("no caller branches on the target outside the places that choose", () => {
    const unexpected = [...found].filter(([f]) => !ALLOWED[f]).map(([f, lines]) => `${f}: ${lines.map((l) => l.trim()).join(" | ")}`);
    expect(unexpected).toEqual([]);
  });

  it("each allowed place still branches as many times as listed (the list does not rot)", () => {
    for (const [f, a] of Object.entries(ALLOWED)) expect({ f, count: found.get(f)?.length ?? 0 }).toEqual({ f, count: a.count });
  });

  it("finds a branch written the old way (the check can fail)", () => {
    expect(BRANCH.test("const live = kube ? kubeLiveStates(kube) : liveStates(p, e);")).toBe(true);
    expect(BRANCH.test('if (where.target !== "kubernetes") await copy();')).toBe(true);
    expect(BRANCH.test("const runs = await runtime.cronRuns(tail);")).toBe(false);
  });
});
