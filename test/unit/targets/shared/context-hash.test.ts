import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type BuildInputs, hashBuildInputs, listBuildContext } from "../../../../src/targets/shared/context-hash.js";
import { DockerignoreError } from "../../../../src/targets/shared/dockerignore.js";

let work: string;
let ctx: string;

function write(rel: string, text: string, mode = 0o644): void {
  mkdirSync(dirname(join(ctx, rel)), { recursive: true });
  writeFileSync(join(ctx, rel), text);
  chmodSync(join(ctx, rel), mode);
}

const inputs = (extra: Partial<BuildInputs> = {}): BuildInputs => ({
  context: ctx,
  dockerfile: "FROM scratch\nCOPY . /\n",
  buildArgs: {},
  ...extra,
});
const hash = (extra: Partial<BuildInputs> = {}) => hashBuildInputs(inputs(extra));
const paths = (dockerignore?: string) => listBuildContext(ctx, dockerignore).map((e) => e.path);

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "context-hash-"));
  ctx = join(work, "ctx");
  mkdirSync(ctx);
  write("main.py", "print('hi')\n");
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

describe("hashBuildInputs: symlinks are sent as links, never followed", () => {
  it("terminates on link loops (a directory link to its parent, a link to itself)", () => {
    mkdirSync(join(ctx, "pkg"));
    symlinkSync("..", join(ctx, "pkg", "up"));
    symlinkSync("self", join(ctx, "self"));
    expect(listBuildContext(ctx)).toEqual([
      { path: "main.py", type: "f", mode: 0o644 },
      { path: "pkg", type: "d", mode: expect.any(Number) },
      { path: "pkg/up", type: "l", mode: 0o777, target: ".." },
      { path: "self", type: "l", mode: 0o777, target: "self" },
    ]);
    expect(hash()).toMatch(/^[0-9a-f]{64}$/);
  });

  it("hashes a link that leaves the context by its text, without reading what it points to", () => {
    symlinkSync("/etc", join(ctx, "etc"));
    const outside = join(work, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "secret"), "v1");
    symlinkSync(join(outside, "secret"), join(ctx, "secret"));
    // A named pipe: reading through the link would block forever.
    execFileSync("mkfifo", [join(outside, "pipe")]);
    symlinkSync(join(outside, "pipe"), join(ctx, "pipe"));
    expect(paths()).toEqual(["etc", "main.py", "pipe", "secret"]);
    const before = hash();
    writeFileSync(join(outside, "secret"), "v2");
    expect(hash()).toBe(before);
    rmSync(join(ctx, "etc"));
    symlinkSync("/usr", join(ctx, "etc"));
    expect(hash()).not.toBe(before);
  });

  it("takes a dangling link as it is", () => {
    symlinkSync("missing/file", join(ctx, "dangling"));
    expect(listBuildContext(ctx)).toContainEqual({ path: "dangling", type: "l", mode: 0o777, target: "missing/file" });
    expect(() => hash()).not.toThrow();
  });

  it("resolves the context directory itself when it is a link, as BuildKit does", () => {
    symlinkSync(ctx, join(work, "ctx-link"));
    expect(hashBuildInputs({ ...inputs(), context: join(work, "ctx-link") })).toBe(hash());
  });

  it("never opens a named pipe in the context", () => {
    execFileSync("mkfifo", [join(ctx, "fifo")]);
    expect(listBuildContext(ctx)).toContainEqual({ path: "fifo", type: "p", mode: 0o666 & ~process.umask() });
    expect(() => hash()).not.toThrow();
  });
});

describe("hashBuildInputs: the build's .dockerignore decides", () => {
  it("a file re-included with ! changes the hash; its excluded siblings do not", () => {
    write(".dockerignore", "data\n!data/seed.json\n*.log\n");
    write("data/seed.json", "[1]");
    write("data/big.bin", "x");
    write("debug.log", "a");
    expect(paths()).toEqual([".dockerignore", "data", "data/seed.json", "main.py"]);
    const before = hash();
    write("data/big.bin", "y");
    write("debug.log", "b");
    write("data/new.bin", "z");
    expect(hash()).toBe(before);
    write("data/seed.json", "[2]");
    expect(hash()).not.toBe(before);
  });

  it("does not walk an ignored directory no exception can reach, and lists an ignored one only for what it re-includes", () => {
    write(".dockerignore", "node_modules\nvendor\n!vendor/ours/**\n");
    write("node_modules/a/index.js", "1");
    write("vendor/theirs/x.py", "1");
    mkdirSync(join(ctx, "vendor", "ours", "empty"), { recursive: true });
    expect(paths()).toEqual([".dockerignore", "main.py", "vendor", "vendor/ours", "vendor/ours/empty"]);
    rmSync(join(ctx, "vendor", "ours"), { recursive: true });
    expect(paths()).toEqual([".dockerignore", "main.py"]);
  });

  it("a recipe's generated rules replace the context's .dockerignore (which is then just a file)", () => {
    write(".dockerignore", "secret.txt\n");
    write("secret.txt", "s1");
    write("cache/x", "1");
    expect(paths("cache\n")).toEqual([".dockerignore", "main.py", "secret.txt"]);
    const before = hash({ dockerignore: "cache\n" });
    write("cache/x", "2");
    expect(hash({ dockerignore: "cache\n" })).toBe(before);
    write("secret.txt", "s2");
    expect(hash({ dockerignore: "cache\n" })).not.toBe(before);
  });

  it("hashes .git, node_modules and the like when the build sends them (nothing is ignored behind the rules' back)", () => {
    write(".git/HEAD", "ref: a");
    const before = hash();
    write(".git/HEAD", "ref: b");
    expect(hash()).not.toBe(before);
  });

  it("refuses an invalid pattern with the file and line", () => {
    write(".dockerignore", "ok\n[z-a\n");
    expect(() => hash()).toThrow(DockerignoreError);
    expect(() => hash()).toThrow(`${join(ctx, ".dockerignore")}:2: invalid .dockerignore pattern "[z-a": unterminated [...]`);
    // A recipe carries the user's lines: the error names the user's file and line.
    expect(() => hash({ dockerignore: "# generated\n.git\nok\n[z-a\n" })).toThrow(`${join(ctx, ".dockerignore")}:2:`);
    rmSync(join(ctx, ".dockerignore"));
    expect(() => hash({ dockerignore: "!\n" })).toThrow(`the recipe's generated .dockerignore:1: invalid .dockerignore pattern "!"`);
  });
});

describe("hashBuildInputs: what else is part of the identity", () => {
  it("permission bits, not just the executable bit", () => {
    const before = hash();
    chmodSync(join(ctx, "main.py"), 0o664);
    const groupWritable = hash();
    expect(groupWritable).not.toBe(before);
    chmodSync(join(ctx, "main.py"), 0o755);
    expect(hash()).not.toBe(groupWritable);
  });

  it("an empty directory (COPY creates it)", () => {
    const before = hash();
    mkdirSync(join(ctx, "uploads"));
    expect(hash()).not.toBe(before);
  });

  it("the Dockerfile text and the build arguments, in any order", () => {
    const base = hash({ buildArgs: { A: "1", B: "2" } });
    expect(hash({ buildArgs: { B: "2", A: "1" } })).toBe(base);
    expect(hash({ buildArgs: { A: "1", B: "3" } })).not.toBe(base);
    expect(hash({ buildArgs: { A: "1", B: "2" }, dockerfile: "FROM scratch\n" })).not.toBe(base);
  });

  it("a file's bytes cannot pass for the entries after it", () => {
    write("a", "x");
    write("b", "y");
    const two = hash();
    rmSync(join(ctx, "b"));
    write("a", "x\0f\0b\x00644\0y");
    expect(hash()).not.toBe(two);
  });

  it("says clearly when the context is missing", () => {
    expect(() => hashBuildInputs({ ...inputs(), context: join(work, "nope") })).toThrow(
      /the build context .*nope is not a readable directory/,
    );
  });
});
