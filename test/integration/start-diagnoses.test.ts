import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { httpsRequest, ok, parseUrls } from "./helpers/cli.js";
import { fixtureApp } from "./helpers/fixture-app.js";
import { ROOT } from "./helpers/env.js";

/**
 * Issue 46 item 3 on the real engine: a service that stops before it is healthy because of the
 * repository itself gets a `diagnosis:` line above its log tail that names the fault and what to
 * change (provider/contract/diagnose-start.ts), and the running version keeps serving. One app
 * (test/fixtures/apps/start-failures) fails one way per MODE: a settings class missing a
 * variable, a frontend directory no build made, a package's import-time version check, and a
 * start command on another port than $PORT.
 */
const { project, dir, cli } = fixtureApp("start-failures", "diag");
const deploy = () => cli("deploy", "--yes", "--project", project);
const base = () => readFileSync(join(ROOT, "test", "fixtures", "apps", "start-failures", "platform.yml"), "utf8");
let url = "";
let ca = "";

/** Deploys the app in MODE (and a start command, when given); returns what the failed deploy said. */
async function failingDeploy(mode: string, start?: string): Promise<string> {
  const yml = base().replace("MODE: ok", `MODE: ${mode}`);
  writeFileSync(join(dir, "platform.yml"), start ? yml.replace("    public: true\n", `    public: true\n    start: ${start}\n`) : yml);
  const r = await deploy();
  expect(r.code, r.stdout).not.toBe(0);
  // The version that ran before keeps serving.
  expect((await httpsRequest(`${url}/health`, ca)).status).toBe(200);
  return `${r.stdout}${r.stderr}`;
}

describe("a diagnosis for a start that fails in the repository itself (Docker)", () => {
  it("the app deploys as it is", async () => {
    const r = ok(await deploy());
    url = parseUrls(r.stdout).api as string;
    ca = ok(await cli("ca")).stdout;
    expect((await httpsRequest(`${url}/health`, ca)).status).toBe(200);
  }, 900_000);

  it("a settings class missing a variable: names it, and the platform.yml env: key that sets it", async () => {
    const out = await failingDeploy("settings");
    expect(out).toMatch(
      /diagnosis: the app's settings class \(Settings, pydantic-settings\) requires SECRET_KEY, which the service's environment does not set: set it in platform\.yml under services\.api\.env \(SECRET_KEY: \.\.\., or \$\{secrets\.SECRET_KEY\}/,
    );
    // Above the log tail it explains.
    expect(out.indexOf("diagnosis:")).toBeLessThan(out.indexOf("Field required"));
  }, 600_000);

  it("a directory the app serves that no build made", async () => {
    expect(await failingDeploy("frontend")).toMatch(
      /diagnosis: the app serves frontend\/dist at start, and no build of this service made it/,
    );
  }, 600_000);

  it("a package's import-time version check", async () => {
    expect(await failingDeploy("version")).toMatch(
      /diagnosis: a package checks another's version when it is imported, and refused it \(versioncheck: Redis transport requires redis-py versions 4\.5\.2 or later\. You have 5\.0\.1\)/,
    );
  }, 600_000);

  it("a start command on another port than $PORT: said once the app has listened there a while, not at the health timeout", async () => {
    const out = await failingDeploy("ok", "exec uvicorn main:app --host 0.0.0.0 --port 8000");
    expect(out).toMatch(/diagnosis: the app listens on port 8000, not on the port the platform gives it in \$PORT \(8080\)/);
    expect(out).not.toMatch(/did not become healthy within/);
  }, 600_000);
});
