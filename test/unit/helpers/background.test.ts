import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../fixtures/temp-home.js";

const LIB = join(import.meta.dirname, "..", "..", "..", "scripts", "setup", "background.sh");

/** Runs a bash script with scripts/setup/background.sh loaded and `out` set to a fresh directory. */
function bash(script: string) {
  const out = tempDir("platform-bg-");
  const r = spawnSync("bash", ["-c", `set -euo pipefail; out=${out}; source ${LIB}; trap stop_background EXIT; ${script}`], {
    encoding: "utf8",
    timeout: 20_000,
  });
  return { code: r.status, output: `${r.stdout}${r.stderr}`, out };
}

describe("npm test's background steps (scripts/setup/background.sh)", () => {
  it("a step that fails writes its exit code, and the wait fails at once with its log's tail", () => {
    const t0 = Date.now();
    const r = bash(
      `in_background build bash -c 'echo compiling; echo "no space left on device" >&2; exit 3'; await_background build "the build"`,
    );
    expect(r.code).toBe(1);
    expect(r.output).toContain("✖ the build failed (exit 3)");
    expect(r.output).toContain("no space left on device");
    expect(readFileSync(join(r.out, "build.rc"), "utf8").trim()).toBe("3");
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it("a step killed before it wrote a code is found dead, not waited for", () => {
    const r = bash(
      `in_background build bash -c 'echo started; sleep 60'; sleep 1; kill -9 -- -$(bg_pid build); await_background build "the build"`,
    );
    expect(r.code).toBe(1);
    expect(r.output).toContain("✖ the build ended without an exit code");
    expect(r.output).toContain("started");
  });

  it("a step that succeeds passes, and a run that ends first stops what still runs", async () => {
    const r = bash(`in_background ok bash -c 'echo fine'; await_background ok "ok" && echo passed; in_background long sleep 30`);
    expect(r.code).toBe(0);
    expect(r.output).toContain("passed");
    const pid = Number(readFileSync(join(r.out, "long.pid"), "utf8"));
    // Gone (or a zombie waiting for an init that reaps it) within a moment of SIGTERM.
    const state = () => (existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] : "gone");
    for (let i = 0; i < 30 && !["gone", "Z"].includes(state() ?? ""); i++) await new Promise((r) => setTimeout(r, 100));
    expect(["gone", "Z"]).toContain(state());
  });
});
