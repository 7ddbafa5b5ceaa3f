import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { engineHome } from "../../src/engine/engine-home.js";
import { freshBackend, pulumiEnv, requireToolchain } from "./helpers/env.js";

/**
 * The engine's PULUMI_HOME (engine/engine-home.ts), with the real Pulumi CLI: the person's own
 * home gets Pulumi's automatic debug log of every command, the engine's home does not, and
 * the engine still finds what the person's home holds.
 */
describe("the engine's Pulumi home", () => {
  const root = mkdtempSync(join(tmpdir(), "platform-engine-home-"));
  const own = join(root, "pulumi-home");
  const saved = { PULUMI_HOME: process.env.PULUMI_HOME, PLATFORM_HOME: process.env.PLATFORM_HOME };
  // The toolchain and the CLI's environment from the real platform home, before it is swapped.
  const bin = requireToolchain().pulumi;
  const env = pulumiEnv(freshBackend());
  mkdirSync(join(own, "plugins"), { recursive: true });
  process.env.PULUMI_HOME = own;
  process.env.PLATFORM_HOME = join(root, "platform");
  const pulumi = (home: string) =>
    execFileSync(bin, ["stack", "ls", "--all", "--non-interactive"], {
      env: { ...env, PULUMI_HOME: home },
      encoding: "utf8",
      timeout: 60_000,
    });
  const logs = () => (existsSync(join(own, "logs")) ? readdirSync(join(own, "logs")) : []);

  afterAll(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    rmSync(root, { recursive: true, force: true });
  });

  it("a command with the person's home is logged there; the same command with the engine's is not", () => {
    pulumi(own);
    expect(logs().length).toBe(1);
    const home = engineHome();
    pulumi(home);
    pulumi(home);
    expect(logs().length).toBe(1);
    expect(lstatSync(join(home, "logs")).isFile()).toBe(true);
  }, 120_000);

  it("links the person's plugins, workspaces and what appears later, never their logs", () => {
    writeFileSync(join(own, "credentials.json"), "{}");
    const home = engineHome();
    expect(readlinkSync(join(home, "plugins"))).toBe(join(own, "plugins"));
    expect(readlinkSync(join(home, "workspaces"))).toBe(join(own, "workspaces"));
    expect(readlinkSync(join(home, "credentials.json"))).toBe(join(own, "credentials.json"));
    expect(engineHome()).toBe(home);
    expect(lstatSync(join(home, "logs")).isFile()).toBe(true);
  });
});
