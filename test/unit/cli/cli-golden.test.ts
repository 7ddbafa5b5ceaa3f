import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDist, expectGolden, ROOT } from "./golden.js";

/**
 * Golden transcripts of the real CLI (`node dist/bin.js`, built here with tsc): what a person
 * sees for `platform validate` and the help texts. After an intended change of output, run
 * `UPDATE_GOLDEN=1 npx vitest run test/unit/cli/cli-golden.test.ts` and review the diff. A
 * failed build fails the tests; so does a missing golden file under CI (elsewhere it is written).
 */

const BIN = join(ROOT, "dist", "bin.js");

interface Run {
  stdout: string;
  stderr: string;
  status: number | null;
}

function platform(args: string[], cwd = ROOT, extraNode: string[] = []): Run {
  const env = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" };
  const r = spawnSync(process.execPath, [...extraNode, BIN, ...args], { cwd, env, encoding: "utf8", timeout: 30_000 });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

function transcript(args: string[], r: Run): string {
  const parts = [`$ platform ${args.join(" ")}`, `[exit ${r.status}]`];
  if (r.stdout !== "") parts.push("[stdout]", r.stdout.replace(/\n$/, ""));
  if (r.stderr !== "") parts.push("[stderr]", r.stderr.replace(/\n$/, ""));
  return `${parts.join("\n")}\n`;
}

const cases: Array<{ name: string; args: string[]; cwd?: string; exit: number }> = [
  { name: "validate-fullstack", args: ["validate"], cwd: "test/fixtures/config/fullstack", exit: 0 },
  { name: "validate-catalog", args: ["validate", "--file", "test/fixtures/config/catalog/platform.yml"], exit: 0 },
  { name: "validate-invalid", args: ["validate", "-f", "test/fixtures/config/invalid/platform.yml"], exit: 1 },
  { name: "validate-invalid-json", args: ["validate", "-f", "test/fixtures/config/invalid/platform.yml", "--json"], exit: 1 },
  { name: "validate-fullstack-json", args: ["validate", "--json", "--file", "test/fixtures/config/fullstack/platform.yml"], exit: 0 },
  { name: "validate-missing", args: ["validate", "-f", "no/such/platform.yml"], exit: 2 },
  { name: "validate-directory", args: ["validate", "-f", "test/fixtures/config/fullstack"], exit: 2 },
  { name: "validate-bad-option", args: ["validate", "--bogus"], exit: 2 },
  { name: "help", args: ["--help"], exit: 0 },
  { name: "validate-help", args: ["validate", "--help"], exit: 0 },
  { name: "cluster-help", args: ["cluster", "--help"], exit: 0 },
];

// Build what the user runs; a failed build fails every test here rather than test a stale dist/.
beforeAll(buildDist, 180_000);

describe("platform validate: golden output", () => {
  it.each(cases)("$name", ({ name, args, cwd, exit }) => {
    const r = platform(args, cwd ? join(ROOT, cwd) : ROOT);
    expect(r.status).toBe(exit);
    expectGolden(`${name}.txt`, transcript(args, r));
  });

  it("--json is one parseable object with a stable shape", () => {
    const r = platform(["validate", "--json", "-f", "test/fixtures/config/invalid/platform.yml"]);
    const body = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(["valid", "file", "services", "errors", "warnings"]);
    for (const d of [...(body.errors as object[]), ...(body.warnings as object[])]) {
      expect(Object.keys(d)).toEqual(["file", "line", "col", "path", "code", "message", "hint"]);
    }
  });
});

describe("platform validate stays light", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "platform-hook-"));
    writeFileSync(
      join(dir, "hook.mjs"),
      [
        'import { registerHooks } from "node:module";',
        "const seen = [];",
        "registerHooks({ resolve(s, c, next) { const r = next(s, c); seen.push(r.url); return r; } });",
        'process.on("exit", () => process.stderr.write("MODULES " + JSON.stringify(seen) + "\\n"));',
      ].join("\n"),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("does not load Pulumi or the Docker client", () => {
    const r = platform(["validate"], join(ROOT, "test/fixtures/config/fullstack"), ["--import", join(dir, "hook.mjs")]);
    expect(r.status).toBe(0);
    const modules = JSON.parse(/MODULES (.*)/.exec(r.stderr)![1]!) as string[];
    expect(modules.filter((m) => /@pulumi|dockerode|docker-modem/.test(m))).toEqual([]);
    expect(modules.some((m) => m.includes("/zod/"))).toBe(true);
  });
});
