import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../fixtures/temp-home.js";
import type { Credentials } from "../../../src/engine/credentials.js";
import { repairFileBackend } from "../../../src/engine/recover.js";

function backend(): { creds: Credentials; dir: string } {
  const root = tempDir("platform-backend-");
  const dir = join(root, ".pulumi", "stacks", "shop");
  mkdirSync(dir, { recursive: true });
  return { creds: { backendUrl: `file://${root}`, passphrase: "x", user: "u", createdAt: "", source: "env" }, dir };
}

describe("a file backend's stack files after the engine was killed mid-write", () => {
  it("removes an empty .attrs sidecar (the 'failed to load checkpoint: EOF' case) and leftover temporary files", () => {
    const { creds, dir } = backend();
    writeFileSync(join(dir, "preview.json"), "{}");
    writeFileSync(join(dir, "preview.json.attrs"), "");
    writeFileSync(join(dir, "preview.json.bak.attrs"), '{"md5":"x"}');
    writeFileSync(join(dir, "preview.json.18ead19d69fd47a2.tmp"), '{"half');
    const notes = repairFileBackend(creds, "shop", "preview");
    expect(notes).toEqual([expect.stringContaining("preview.json.attrs was left half-written")]);
    expect(existsSync(join(dir, "preview.json.attrs"))).toBe(false);
    expect(existsSync(join(dir, "preview.json.bak.attrs"))).toBe(true);
    expect(existsSync(join(dir, "preview.json.18ead19d69fd47a2.tmp"))).toBe(false);
  });

  it("restores an unreadable checkpoint from its backup, and leaves a sound stack alone", () => {
    const { creds, dir } = backend();
    writeFileSync(join(dir, "preview.json"), "");
    writeFileSync(join(dir, "preview.json.bak"), '{"version":3}');
    expect(repairFileBackend(creds, "shop", "preview")).toEqual([
      expect.stringContaining("restored the state of shop/preview from its backup"),
    ]);
    expect(readFileSync(join(dir, "preview.json"), "utf8")).toBe('{"version":3}');
    expect(repairFileBackend(creds, "shop", "preview")).toEqual([]);
    expect(repairFileBackend({ ...creds, backendUrl: "s3://bucket" }, "shop", "preview")).toEqual([]);
  });
});
