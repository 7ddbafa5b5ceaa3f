import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { LocalWorkspace, PulumiCommand } from "@pulumi/pulumi/automation/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Container } from "../../src/targets/docker/resources.js";
import { Network } from "../../src/targets/shared/resources.js";
import { baseImages } from "../../src/home/images.js";
import { freshBackend, pulumiEnv, requireToolchain, ROOT, unique } from "./helpers/env.js";

/**
 * Issue #3's smoke test: the real Pulumi engine drives the platform's own Docker provider
 * plugin to create one container from a local base image, sees no change on a second `up`,
 * and removes it on `destroy`.
 */
const inspect = (name: string) => JSON.parse(execFileSync("docker", ["inspect", name]).toString())[0];
const exists = (name: string) => {
  try {
    execFileSync("docker", ["inspect", name], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};

describe("smoke: Pulumi engine + platform Docker provider", () => {
  const backend = freshBackend();
  const name = unique("smoke");
  const workDir = mkdtempSync(join(tmpdir(), "platform-smoke-"));
  let stack: Awaited<ReturnType<typeof LocalWorkspace.createOrSelectStack>>;

  beforeAll(async () => {
    const { pulumi } = requireToolchain();
    writeFileSync(
      join(workDir, "Pulumi.yaml"),
      `name: ${name}\nruntime: nodejs\nplugins:\n  providers:\n    - name: platform\n      path: ${join(ROOT, "bin")}\n`,
    );
    const program = async () => {
      const net = new Network("net", { name: `${name}-net` });
      const c = new Container(
        "web",
        {
          name,
          image: baseImages().python,
          command: ["python", "-m", "http.server", "8080"],
          networks: [{ name: `${name}-net`, aliases: ["web"] }],
          health: { kind: "http", path: "/", port: 8080 },
          labels: { "platform.test": name },
        },
        { dependsOn: [net] },
      );
      return { containerName: c.containerName };
    };
    stack = await LocalWorkspace.createOrSelectStack(
      { stackName: "dev", projectName: name, program },
      {
        workDir,
        pulumiCommand: await PulumiCommand.get({ root: dirname(dirname(pulumi)) }),
        envVars: pulumiEnv(backend) as Record<string, string>,
      },
    );
  });

  afterAll(async () => {
    await stack?.destroy({}).catch(() => undefined);
  });

  it("creates a running container, no-ops on a second up, and destroys it", async () => {
    const up = await stack.up({});
    expect(up.summary.result).toBe("succeeded");
    const containerName = up.outputs.containerName?.value as string;
    expect(containerName).toMatch(new RegExp(`^${name}-[0-9a-f]{6}$`));
    expect(inspect(containerName).State.Running).toBe(true);

    const again = await stack.up({});
    const changes = again.summary.resourceChanges ?? {};
    expect(Object.keys(changes).filter((k) => k !== "same")).toEqual([]);
    expect(inspect(containerName).State.Running).toBe(true);

    const preview = await stack.preview({});
    expect(Object.keys(preview.changeSummary).filter((k) => k !== "same")).toEqual([]);

    await stack.destroy({});
    expect(exists(containerName)).toBe(false);
    expect(exists(`${name}-net`)).toBe(false);
  }, 300_000);
});
