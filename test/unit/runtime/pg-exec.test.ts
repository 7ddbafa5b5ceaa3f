import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { execArgv, WATCHED } from "../../../src/runtime/pg-exec.js";

const pod = { kubectl: "/k/kubectl", kubeconfig: "/k/admin.yaml", namespace: "shop-preview", pod: "database-0", container: "database" };

describe("execArgv: where a database's commands run", () => {
  it("a Docker container: docker exec, -i before the container when the command reads its input", () => {
    expect(execArgv("c0ffee", ["psql", "-c", "SELECT 1"], false)).toEqual(["docker", ["exec", "c0ffee", "psql", "-c", "SELECT 1"]]);
    expect(execArgv("c0ffee", ["pg_restore"], true)).toEqual(["docker", ["exec", "-i", "c0ffee", "pg_restore"]]);
  });

  it("a pod: kubectl exec with the stack's kubeconfig, in its namespace and container, the command after --", () => {
    expect(execArgv(pod, ["psql", "-c", "SELECT 1"], false)).toEqual([
      "/k/kubectl",
      ["--kubeconfig", "/k/admin.yaml", "exec", "-n", "shop-preview", "database-0", "-c", "database", "--", "psql", "-c", "SELECT 1"],
    ]);
    const [, args] = execArgv(pod, ["pg_restore"], true);
    expect(args.indexOf("-i")).toBeGreaterThan(-1);
    expect(args.indexOf("-i")).toBeLessThan(args.indexOf("--"));
  });

  it("a streaming command in a pod is watched: it is stopped when its standard input ends (the CLI gone)", () => {
    // The watch as pg-exec runs it in the pod, here under the local sh: input ended at once.
    const t0 = Date.now();
    const r = spawnSync("sh", ["-c", WATCHED, "sh", "sleep", "30"], { input: "", encoding: "utf8", timeout: 10_000 });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(r.status).toBe(143);
    // ...and a command that ends on its own keeps its exit code while its input stays open.
    const done = spawnSync("sh", ["-c", `(sleep 3) | sh -c '${WATCHED.replace(/'/g, `'\\''`)}' sh sh -c 'exit 7'`], { encoding: "utf8" });
    expect(done.status).toBe(7);
  });
});
