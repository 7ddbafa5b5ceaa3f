// The build-input hash against real BuildKit: a context with symlinks (a loop, one that
// leaves the context, a dangling one), modes and a .dockerignore with exceptions is built
// `FROM scratch` with `COPY . /` and exported to a directory, and what BuildKit copied must
// be exactly what listBuildContext says it sends: same paths, types, modes, link texts,
// bytes. Once with the context's .dockerignore, once with a recipe's rules beside the
// Dockerfile (which replace it). Nothing is skipped: no Docker fails the test.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashBuildInputs, listBuildContext } from "../../src/targets/shared/context-hash.js";

const execFileP = promisify(execFile);
/** Debian's 20.10 client runs the engine's BuildKit; the newer client on PATH has no buildx. */
const DOCKER = process.env.PLATFORM_DOCKER_CLI ?? (existsSync("/usr/bin/docker") ? "/usr/bin/docker" : "docker");

const work = mkdtempSync(join(tmpdir(), "platform-context-hash-"));
const ctx = join(work, "ctx");

async function docker(args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await execFileP(DOCKER, args, { env: { ...process.env, DOCKER_BUILDKIT: "1" }, timeout: 300_000 });
    return stdout + stderr;
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${DOCKER} ${args.slice(0, 2).join(" ")} ... failed: ${err.message}\n${err.stderr ?? ""}${err.stdout ?? ""}`.slice(0, 8000),
    );
  }
}

function write(rel: string, text: string, mode = 0o644): void {
  mkdirSync(dirname(join(ctx, rel)), { recursive: true });
  writeFileSync(join(ctx, rel), text);
  chmodSync(join(ctx, rel), mode);
}

/** One line per entry: type, mode, path, and the link text or a digest of the bytes. */
function describeEntry(root: string, path: string, type: string, mode: number): string {
  const full = join(root, path);
  const what =
    type === "l" ? readlinkSync(full) : type === "f" ? createHash("sha256").update(readFileSync(full)).digest("hex").slice(0, 12) : "";
  return `${type} ${mode.toString(8)} ${path} ${what}`;
}

/** What BuildKit copied, read back from the exported directory. */
function listExported(root: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, prefix)).sort()) {
    const path = prefix ? `${prefix}/${name}` : name;
    const st = lstatSync(join(root, path));
    const type = st.isSymbolicLink() ? "l" : st.isDirectory() ? "d" : "f";
    out.push(describeEntry(root, path, type, st.mode & 0o7777));
    if (type === "d") out.push(...listExported(root, path));
  }
  return out;
}

const listHashed = (dockerignore?: string) => listBuildContext(ctx, dockerignore).map((e) => describeEntry(ctx, e.path, e.type, e.mode));

/** Builds the context the way the Image resource does (Dockerfile outside it, with -f) and exports the result. */
async function buildAndExport(recipeDockerignore?: string): Promise<string[]> {
  const dir = mkdtempSync(join(work, "build-"));
  writeFileSync(join(dir, "Dockerfile"), "FROM scratch\nCOPY . /\n");
  if (recipeDockerignore !== undefined) writeFileSync(join(dir, "Dockerfile.dockerignore"), recipeDockerignore);
  const out = join(dir, "out");
  await docker(["build", "--progress=plain", "-f", join(dir, "Dockerfile"), "-o", `type=local,dest=${out}`, ctx]);
  return listExported(out);
}

describe("build-input hash vs. what BuildKit sends", () => {
  beforeAll(async () => {
    await docker(["version"]).catch((e: Error) => {
      throw new Error(`a Docker engine with BuildKit is required (${DOCKER}): ${e.message}`);
    });
    write("main.py", "print('hi')\n", 0o664);
    write("run.sh", "#!/bin/sh\n", 0o755);
    write("README.md", "read me");
    write("NOTES.md", "ignored");
    write("docs/guide.md", "only top-level *.md is ignored");
    write("data/seed.json", "[1]");
    write("data/big.bin", "ignored");
    write("data/raw/x.csv", "ignored");
    write("build/out.o", "ignored: /build");
    write("src/build/keep.txt", "kept: /build is anchored");
    write("pkg/mod.pyc", "ignored: **/*.pyc");
    write("vendor/ours/lib.py", "re-included");
    write("vendor/theirs/lib.py", "ignored");
    write("secret.txt", "ignored by the context's rules only");
    write("cache/tmp", "ignored by the recipe's rules only");
    mkdirSync(join(ctx, "uploads"));
    symlinkSync("..", join(ctx, "pkg", "up"));
    symlinkSync("self", join(ctx, "self"));
    symlinkSync("/etc", join(ctx, "etc"));
    symlinkSync("missing/file", join(ctx, "dangling"));
    write(
      ".dockerignore",
      [
        "# the context's rules",
        "*.md",
        "!README.md",
        "data",
        "!data/seed.json",
        "**/*.pyc",
        "/build",
        "vendor",
        "!vendor/ours/**",
        "secret.txt",
        "",
      ].join("\n"),
    );
  });

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("with the context's .dockerignore: the same entries, modes, links and bytes", async () => {
    const exported = await buildAndExport();
    expect(exported).toEqual(listHashed());
    // The cases that matter, spelled out.
    const paths = exported.map((l) => l.split(" ")[2]);
    expect(paths).toEqual(
      expect.arrayContaining([
        "README.md",
        "data/seed.json",
        "docs/guide.md",
        "src/build/keep.txt",
        "vendor/ours/lib.py",
        "pkg/up",
        "etc",
        "dangling",
        "self",
        "uploads",
        "cache/tmp",
      ]),
    );
    for (const gone of ["NOTES.md", "data/big.bin", "data/raw", "build", "pkg/mod.pyc", "vendor/theirs", "secret.txt"])
      expect(paths).not.toContain(gone);
  }, 300_000);

  it("with a recipe's rules beside the Dockerfile: they replace the context's", async () => {
    const recipe = "# generated\ncache\n*.md\n";
    const exported = await buildAndExport(recipe);
    expect(exported).toEqual(listHashed(recipe));
    const paths = exported.map((l) => l.split(" ")[2]);
    expect(paths).toEqual(expect.arrayContaining(["secret.txt", "data/big.bin", ".dockerignore"]));
    expect(paths).not.toContain("cache");
  }, 300_000);

  it("with an exception that has a glob: never less than BuildKit sends", async () => {
    // Docker 20.10's walker does not look inside an ignored directory for such exceptions;
    // newer BuildKit (and the hash) does. The hash may hold more, never less.
    write("node_modules/pkg/LICENSE", "MIT");
    write("node_modules/pkg/index.js", "ignored");
    const recipe = "node_modules\n!**/LICENSE\n";
    const exported = await buildAndExport(recipe);
    const hashed = listHashed(recipe);
    expect(hashed).toEqual(expect.arrayContaining(exported));
    expect(hashed.filter((l) => !exported.includes(l)).map((l) => l.split(" ")[2])).toEqual(
      exported.some((l) => l.includes("node_modules/pkg/LICENSE")) ? [] : ["node_modules", "node_modules/pkg", "node_modules/pkg/LICENSE"],
    );
    rmSync(join(ctx, "node_modules"), { recursive: true });
  }, 300_000);

  it("hashes what BuildKit saw: a re-included file counts, an ignored one does not", () => {
    const hash = () => hashBuildInputs({ context: ctx, dockerfile: "FROM scratch\nCOPY . /\n", buildArgs: {} });
    const before = hash();
    write("data/big.bin", "still ignored");
    expect(hash()).toBe(before);
    write("data/seed.json", "[2]");
    expect(hash()).not.toBe(before);
  });
});
