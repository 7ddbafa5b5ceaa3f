import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir, withTempPlatformHome } from "../../fixtures/temp-home.js";
import { programFingerprint } from "../../../src/engine/program-fingerprint.js";
import type { StackConfigValue } from "../../../src/engine/stack-settings.js";

/**
 * The program's fingerprint (the requests it would make of the engine, made against the SDK's
 * mock monitor) on a real project: the platform's own compiled program (dist/), a scratch home.
 */
const dir = tempDir("fingerprint-");

function project(env: string, code = "print('hi')\n"): Record<string, StackConfigValue> {
  mkdirSync(join(dir, "api"), { recursive: true });
  writeFileSync(join(dir, "api", "Dockerfile"), 'FROM python:3.11-slim\nCOPY . /app\nCMD ["python", "/app/main.py"]\n');
  writeFileSync(join(dir, "api", "main.py"), code);
  writeFileSync(
    join(dir, "platform.yml"),
    `version: "1.0"\nname: fp\nservices:\n  api:\n    type: fastapi\n    build:\n      source: ./api\n      dockerfile: Dockerfile\n    public: true\n    env:\n${env}`,
  );
  return {
    "platform:configFile": { value: join(dir, "platform.yml"), secret: false },
    "platform:target": { value: "docker", secret: false },
  };
}

const fingerprint = (config: Record<string, StackConfigValue>) => programFingerprint("fp", "preview", config);
const secret = (ciphertext: string) => ({ "secrets:TOKEN": { value: ciphertext, secret: true } });

describe("the program's fingerprint", () => {
  withTempPlatformHome("all");

  it("is the same for the same project and settings, and changes with any input the engine would get", async () => {
    const base = await fingerprint(project("      GREETING: hello\n"));
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(await fingerprint(project("      GREETING: hello\n"))).toBe(base);
    // platform.yml, a file of the build context, a stack setting.
    expect(await fingerprint(project("      GREETING: hi\n"))).not.toBe(base);
    expect(await fingerprint(project("      GREETING: hello\n", "print('changed')\n"))).not.toBe(base);
    const config = project("      GREETING: hello\n");
    expect(await fingerprint({ ...config, "platform:appsDomain": { value: "apps.test", secret: false } })).not.toBe(base);
    expect(await fingerprint(config)).toBe(base);
  }, 60_000);

  it("takes a secret as its ciphertext: set again, it is another fingerprint", async () => {
    const config = project("      TOKEN: ${secrets.TOKEN}\n");
    const first = await fingerprint({ ...config, ...secret("v1:aaaa:bbbb") });
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(await fingerprint({ ...config, ...secret("v1:aaaa:bbbb") })).toBe(first);
    expect(await fingerprint({ ...config, ...secret("v1:cccc:dddd") })).not.toBe(first);
  }, 60_000);

  it("is none when the program fails (the engine runs and says why)", async () => {
    expect(await fingerprint(project("      TOKEN: ${secrets.TOKEN}\n"))).toBeUndefined();
    expect(await fingerprint(project("      - not a map\n"))).toBeUndefined();
  }, 60_000);
});
