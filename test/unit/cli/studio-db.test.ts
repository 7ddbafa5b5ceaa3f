import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/** The real CLI's refusals for Studio and db connect that need no engine. */
const ROOT = join(import.meta.dirname, "..", "..", "..");
const run = (args: string[], cwd = ROOT) =>
  spawnSync(process.execPath, [join(ROOT, "dist", "bin.js"), ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, CI: "true", PLATFORM_STUDIO_DIR: "/nonexistent-studio-dir" },
  });

describe("platform studio and platform db connect, bad input", () => {
  it("refuses a port that is not one, with exit 2", () => {
    const r = run(["studio", "--port", "70000"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--port: "70000" is not a port number');
  });

  it("says when Studio is not running (status exit 1, stop exit 0)", () => {
    const s = run(["studio", "--status"]);
    expect(s.status).toBe(1);
    expect(s.stdout).toContain("Studio is not running");
    expect(run(["studio", "--stop"]).stdout).toContain("Studio was not running");
  });

  it("refuses db connect on a service that is not postgres, or not in platform.yml", () => {
    const dir = join(ROOT, "examples", "fullstack");
    const api = run(["db", "connect", "api", "--project", "studio-unit"], dir);
    expect(api.status).toBe(2);
    expect(api.stderr).toContain("api is a fastapi service: db connect needs a postgres service");
    const missing = run(["db", "connect", "dtabase", "--project", "studio-unit"], dir);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('no service "dtabase"');
  });
});
