import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../fixtures/temp-home.js";

/**
 * The preload every Node process of a deploy loads (src/preload/lazy-sdk-modules.cts) tells the
 * Pulumi program's runner that the program is JavaScript: the language host the set-up builds
 * always says TypeScript, and registering ts-node cost about 0.2 s of each deploy.
 */
const PRELOAD = fileURLToPath(new URL("../../../dist/preload/lazy-sdk-modules.cjs", import.meta.url));

function typescriptSeenBy(script: string): string {
  const dir = tempDir("preload-");
  const file = join(dir, script);
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, "process.stdout.write(String(process.env.PULUMI_NODEJS_TYPESCRIPT));\n");
  return execFileSync(process.execPath, ["--require", PRELOAD, file], {
    env: { ...process.env, PULUMI_NODEJS_TYPESCRIPT: "true" },
  }).toString();
}

describe("the deploy's preload and the Pulumi program's runner", () => {
  it("turns the runner's TypeScript off, and nothing else's", () => {
    expect(typescriptSeenBy("node_modules/@pulumi/pulumi/cmd/run/index.js")).toBe("false");
    expect(typescriptSeenBy("node_modules/other/cmd/run/index.js")).toBe("true");
  });
});
