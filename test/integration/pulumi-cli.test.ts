import { execFileSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { freshBackend, pulumiEnv, requireToolchain, ROOT, unique } from "./helpers/env.js";

/**
 * The infra engineers' path: the pulumi CLI runs the repository's own Pulumi.yaml through the
 * Node.js language host (not the Automation API), and previews the catalog example.
 */
describe("pulumi CLI on the repository's Pulumi.yaml", () => {
  const env = pulumiEnv(freshBackend());
  const stack = unique("t-");
  const pulumi = (...args: string[]) =>
    execFileSync(requireToolchain().pulumi, [...args, "--non-interactive", "--cwd", ROOT], { env, encoding: "utf8", timeout: 240_000 });

  afterAll(() => {
    try {
      pulumi("stack", "rm", stack, "--yes", "--force");
    } catch {
      /* never created */
    }
  });

  it("previews the catalog example", () => {
    pulumi("stack", "init", stack, "--secrets-provider", "passphrase");
    pulumi("config", "set", "platform:configFile", "examples/catalog/platform.yml", "--stack", stack);
    const out = pulumi("preview", "--stack", stack, "--color", "never", "--diff");
    expect(out).toContain("platform:docker:Network");
    expect(out).toContain("platform:docker:Image");
    expect(out).toContain("platform:docker:Container::api]");
    expect(out).toContain("platform:docker:Container::traffic]");
    expect(out).toContain("api_url");
  }, 300_000);
});
