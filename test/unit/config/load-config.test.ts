import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config/index.js";
import { firstInvalidUtf8, type LoadResult } from "../../../src/config/load-config.js";

/** The I/O wrapper on a real file system: everything that stops reading is one clear diagnostic. */

const VALID = 'version: "1.0"\nname: shop\nservices:\n  api:\n    type: fastapi\n    source: ./api\n    public: true\n';
let dir: string;
let outside: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "platform-config-"));
  outside = mkdtempSync(join(tmpdir(), "platform-outside-"));
  mkdirSync(join(dir, "api"));
  mkdirSync(join(dir, "nested"));
  writeFileSync(join(dir, "nested", "platform.yml"), VALID);
  symlinkSync(outside, join(dir, "escape"));
  symlinkSync(join(dir, "api"), join(dir, "alias"));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

/**
 * loadConfig(path) as the unprivileged user `nobody`, for a test that needs permission bits to
 * count (root reads any file; CI runs as root). A child Node imports loadConfig (through tsx,
 * as root, so the checkout need not be readable by nobody), drops to nobody's uid and gid for
 * good, checks that it did and that it can still stat the file, then loads it.
 */
function loadConfigAsNobody(path: string): { uid: number; statOk: boolean; result: LoadResult } {
  const id = (flag: string) => Number(execFileSync("id", [flag, "nobody"]).toString().trim());
  const [uid, gid] = [id("-u"), id("-g")];
  const root = fileURLToPath(new URL("../../../", import.meta.url));
  const module = new URL("../../../src/config/index.ts", import.meta.url).href;
  const script = `
    import { statSync } from "node:fs";
    const { loadConfig } = await import(${JSON.stringify(module)});
    process.setgroups([]);
    process.setgid(${gid});
    process.setuid(${uid});
    let statOk = true;
    try { statSync(${JSON.stringify(path)}); } catch { statOk = false; }
    const result = await loadConfig(${JSON.stringify(path)});
    process.stdout.write(JSON.stringify({ uid: process.getuid(), statOk, result }));
  `;
  const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "--eval", script], { cwd: root, encoding: "utf8" });
  return JSON.parse(out) as { uid: number; statOk: boolean; result: LoadResult };
}

function write(name: string, content: string | Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

describe("loadConfig", () => {
  it("reads, validates against the file's directory, and returns the source", async () => {
    const p = write("ok.yml", VALID);
    const r = await loadConfig(p);
    expect(r.errors).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.source).toBe(VALID);
    expect(Object.keys(r.config!.services)).toEqual(["api"]);
  });

  it("a missing file is one 'unreadable' diagnostic", async () => {
    const r = await loadConfig(join(dir, "missing.yml"));
    expect(r.ok).toBe(false);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({
      code: "unreadable",
      line: 1,
      col: 1,
      message: `cannot read ${join(dir, "missing.yml")}: no such file`,
    });
    expect(r.errors[0]!.hint).toContain("--file");
  });

  it("a directory in place of the file says so, and points at the file inside when there is one", async () => {
    const r = await loadConfig(join(dir, "nested"));
    expect(r.errors[0]).toMatchObject({ code: "unreadable", message: `${join(dir, "nested")} is a directory, not a file` });
    expect(r.errors[0]!.hint).toBe(`pass the file itself: --file ${join(dir, "nested", "platform.yml")}`);
  });

  it("a FIFO is refused instead of blocking", async () => {
    const fifo = join(dir, "fifo.yml");
    execFileSync("mkfifo", [fifo]);
    const r = await loadConfig(fifo);
    expect(r.errors[0]).toMatchObject({ code: "unreadable", message: `${fifo} is not a regular file` });
  });

  it("a file without read permission is 'unreadable'", async () => {
    const p = write("secret.yml", VALID);
    chmodSync(p, 0o000);
    let r: LoadResult;
    if (process.getuid?.() === 0) {
      // Root reads it anyway: read as nobody, who can reach the file (its directory is
      // searchable) but not read it.
      chmodSync(dir, 0o755);
      const asNobody = loadConfigAsNobody(p);
      expect(asNobody.uid).not.toBe(0);
      expect(asNobody.statOk, "nobody can stat the file: only reading it is denied").toBe(true);
      r = asNobody.result;
    } else {
      r = await loadConfig(p);
    }
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ code: "unreadable", message: `cannot read ${p}: permission denied` });
  });

  it("invalid UTF-8 is reported at its line and column", async () => {
    const p = write("latin1.yml", Buffer.concat([Buffer.from('version: "1.0"\nname: caf'), Buffer.from([0xe9]), Buffer.from("\n")]));
    const r = await loadConfig(p);
    expect(r.errors).toEqual([
      expect.objectContaining({ code: "invalid-utf8", line: 2, col: 10, message: "not valid UTF-8 text (byte 0xe9)" }),
    ]);
  });

  it("a file over the size limit is refused before it is read", async () => {
    const p = write("big.yml", `a: ${"x".repeat(2 * 1024 * 1024)}\n`);
    const t0 = performance.now();
    const r = await loadConfig(p);
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(r.errors[0]).toMatchObject({ code: "too-large", message: "file is 2.0 MiB; platform.yml may be at most 256 KiB" });
  });

  it("a BOM is accepted and dropped from the returned source", async () => {
    const p = write("bom.yml", `\uFEFF${VALID}`);
    const r = await loadConfig(p);
    expect(r.errors).toEqual([]);
    expect(r.source).toBe(VALID);
  });

  it("source paths are checked on disk: symlinks out of the project are refused, inside ones are fine", async () => {
    const bad = await loadConfig(write("escape.yml", VALID.replace("./api", "./escape")));
    expect(bad.errors.map((d) => `${d.line}:${d.col} ${d.code}`)).toEqual(["6:13 path-outside-project"]);
    const good = await loadConfig(write("alias.yml", VALID.replace("./api", "./alias")));
    expect(good.errors).toEqual([]);
  });

  it("a relative path is shown as given", async () => {
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const r = await loadConfig("missing.yml");
      expect(r.errors[0]!.file).toBe("missing.yml");
      const r2 = await loadConfig(write("rel.yml", VALID.replace('"1.0"', '"2.0"')).slice(dir.length + 1));
      expect(r2.errors[0]!.file).toBe("rel.yml");
    } finally {
      process.chdir(cwd);
    }
  });
});

describe("firstInvalidUtf8", () => {
  it.each([
    ["ascii", [0x61, 0x62], -1],
    ["2-byte é", [0xc3, 0xa9], -1],
    ["4-byte emoji", [0xf0, 0x9f, 0x98, 0x80], -1],
    ["lone continuation", [0x61, 0x80], 1],
    ["truncated", [0x61, 0xe2, 0x82], 1],
    ["overlong", [0xc0, 0xaf], 0],
    ["surrogate", [0xed, 0xa0, 0x80], 0],
    ["above U+10FFFF", [0xf4, 0x90, 0x80, 0x80], 0],
  ])("%s", (_name, bytes, expected) => {
    expect(firstInvalidUtf8(Uint8Array.from(bytes))).toBe(expected);
  });
});
