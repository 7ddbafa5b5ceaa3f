import { cpSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { platformHome } from "../../src/home/layout.js";
import { tempDir } from "../fixtures/temp-home.js";
import { runCli } from "./helpers/cli.js";
import { copyExample } from "./helpers/env.js";

/** The CLI as a newcomer meets it: login state, doctor, and the messages that say what to do. */
function freshHome(): string {
  const home = tempDir("platform-home-");
  // The set-up's toolchain and base images, without its credentials.
  for (const f of ["toolchain.json", "images.json", "otel-layers.json"]) cpSync(join(platformHome(), f), join(home, f));
  return home;
}

describe("platform CLI basics", () => {
  it("login writes mode-0600 credentials; whoami and logout use them", async () => {
    const home = freshHome();
    const env = { PLATFORM_HOME: home };
    const login = await runCli(["login"], { cwd: home, env });
    expect(login.code).toBe(0);
    expect(login.stdout).toContain(`backend: file://${home}/state`);
    expect(statSync(join(home, "credentials.json")).mode & 0o777).toBe(0o600);
    const who = await runCli(["whoami", "--json"], { cwd: home, env });
    expect(JSON.parse(who.stdout)).toMatchObject({ backend: `file://${home}/state`, source: "file" });
    expect(who.stdout).not.toContain("passphrase");
    expect((await runCli(["logout"], { cwd: home, env })).stdout).toContain("Logged out");
    const after = await runCli(["whoami"], { cwd: home, env });
    expect(after.code).toBe(3);
    expect(after.stderr).toContain("run `platform login`");
  });

  it("deploy before login fails, saying to run platform login, and touches nothing", async () => {
    const home = freshHome();
    const dir = join(home, "app");
    copyExample("catalog", dir);
    const r = await runCli(["deploy", "--yes"], { cwd: dir, env: { PLATFORM_HOME: home } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/not logged in: run `platform login` first/);
  });

  it("deploy without a terminal asks for --yes instead of hanging", async () => {
    const home = freshHome();
    const dir = join(home, "app");
    copyExample("catalog", dir);
    const r = await runCli(["deploy"], {
      cwd: dir,
      env: { PLATFORM_HOME: home, PLATFORM_BACKEND_URL: `file://${home}/state`, PLATFORM_PASSPHRASE: "x" },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("No project found for this directory");
    expect(r.stderr).toContain("--yes");
  });

  it("doctor is ready on this machine, and says how to fix a stopped Docker engine", async () => {
    const home = freshHome();
    const env = { PLATFORM_HOME: home, PLATFORM_BACKEND_URL: `file://${home}`, PLATFORM_PASSPHRASE: "x" };
    const good = await runCli(["doctor", "--json"], { cwd: home, env });
    const report = JSON.parse(good.stdout);
    expect(report.checks.filter((c: { ok: boolean }) => !c.ok)).toEqual([]);
    expect(good.code).toBe(0);
    // What `npm run demo` runs: the table, with every base image and the set-up's OpenTelemetry layers.
    const table = await runCli(["doctor"], { cwd: home, env });
    expect(table.stderr).toBe("");
    expect(table.stdout).toMatch(/^OpenTelemetry layers +✓ +platform-local\/otel-layer:/m);
    expect(table.stdout).toContain("✓ ready to deploy");
    expect(table.code).toBe(0);
    const down = await runCli(["doctor"], { cwd: home, env: { ...env, DOCKER_HOST: `unix://${home}/no-dockerd.sock` } });
    expect(down.code).toBe(4);
    expect(down.stdout).toMatch(/Docker engine +✖/);
    expect(down.stdout).toContain("✖ Docker engine: start it: npm run setup (starts dockerd)");
    expect(down.stdout).toContain("not ready to deploy");
  });

  it("an invalid platform.yml stops deploy before anything runs, with positions", async () => {
    const home = freshHome();
    const dir = join(home, "app");
    copyExample("catalog", dir);
    const { writeFileSync } = await import("node:fs");
    writeFileSync(
      join(dir, "platform.yml"),
      'version: "1.0"\nname: catalog\nservices:\n  api:\n    type: fastapi\n    source: ./api\n    dependson: [db]\n',
    );
    const r = await runCli(["deploy", "--yes"], {
      cwd: dir,
      env: { PLATFORM_HOME: home, PLATFORM_BACKEND_URL: `file://${home}`, PLATFORM_PASSPHRASE: "x" },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/platform\.yml:7:5 .*depends_on/);
  });
});
