import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../fixtures/temp-home.js";
import { parse } from "yaml";
import { readStackConfig, readStackSettings, writeStackSettings } from "../../../src/engine/stack-settings.js";

const ENGINE_MADE = [
  "encryptionsalt: v1:bC/dZvA2pYg=:v1:gWLqRY1N0Jxq9DUW:nmQ3qrhJLbGjKTBAouzrx9ou6GlFVw==",
  "config:",
  "  platform:appsDomain: example.test",
  '  platform:httpsPort: "8443"',
  "  fullstack:secrets.API_KEY:",
  "    secure: v1:abcdefgh:ijklmnop",
  "",
].join("\n");

function settingsFile(text: string): string {
  const file = join(tempDir("stack-settings-"), "Pulumi.preview.yaml");
  writeFileSync(file, text, { mode: 0o600 });
  return file;
}

describe("the stack's settings file, written without the Pulumi CLI", () => {
  it("reads the plain values, not the secrets", () => {
    expect(readStackSettings(settingsFile(ENGINE_MADE))).toEqual({ "platform:appsDomain": "example.test", "platform:httpsPort": "8443" });
  });

  it("sets the platform's values as strings and keeps the salt, the secrets and the file's mode", () => {
    const file = settingsFile(ENGINE_MADE);
    expect(writeStackSettings(file, { "platform:httpsPort": "443", "platform:images": "", "platform:deploymentId": "dep_1" })).toBe(true);
    const doc = parse(readFileSync(file, "utf8"));
    expect(doc.encryptionsalt).toMatch(/^v1:/);
    expect(doc.config).toEqual({
      "platform:appsDomain": "example.test",
      "platform:httpsPort": "443",
      "fullstack:secrets.API_KEY": { secure: "v1:abcdefgh:ijklmnop" },
      "platform:images": "",
      "platform:deploymentId": "dep_1",
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("adds a config section to a file the engine made without one", () => {
    const file = settingsFile("encryptionsalt: v1:x:y\n");
    expect(writeStackSettings(file, { "platform:configFile": "/p/platform.yml" })).toBe(true);
    expect(parse(readFileSync(file, "utf8")).config).toEqual({ "platform:configFile": "/p/platform.yml" });
  });

  it("leaves a missing, unreadable or foreign file to the CLI (nothing written)", () => {
    const dir = tempDir("stack-settings-");
    expect(readStackSettings(join(dir, "none.yaml"))).toBeUndefined();
    for (const text of ["config: [1, 2\n", "config:\n  a: b\n", "- not a map\n"]) {
      const file = settingsFile(text);
      expect(writeStackSettings(file, { "platform:images": "" })).toBe(false);
      expect(readFileSync(file, "utf8")).toBe(text);
    }
  });
});

describe("every entry of the settings file, for the program's fingerprint", () => {
  it("reads secrets as their ciphertext, marked secret, and structured values as JSON text", () => {
    const file = settingsFile(`${ENGINE_MADE.trimEnd()}\n  platform:list:\n    - a\n`);
    expect(readStackConfig(file)).toEqual({
      "platform:appsDomain": { value: "example.test", secret: false },
      "platform:httpsPort": { value: "8443", secret: false },
      "fullstack:secrets.API_KEY": { value: "v1:abcdefgh:ijklmnop", secret: true },
      "platform:list": { value: '["a"]', secret: false, structured: true },
    });
    expect(readStackSettings(file)).toEqual({ "platform:appsDomain": "example.test", "platform:httpsPort": "8443" });
  });
});
