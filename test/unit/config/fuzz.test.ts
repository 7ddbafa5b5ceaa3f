import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { validateConfig, type ValidationResult } from "../../../src/config/index.js";
import { memFs } from "./helpers.js";

/**
 * Thousands of random and mutated documents, from a seeded PRNG so every run is the same:
 * validation never throws, never hangs, and every result is either a config or errors that
 * point at a real place in the text.
 */

/** mulberry32: tiny, fast, good enough to explore inputs. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEEDS = [
  readFileSync("test/fixtures/config/fullstack/platform.yml", "utf8"),
  readFileSync("test/fixtures/config/catalog/platform.yml", "utf8"),
];
const KEYS = [
  "version",
  "name",
  "services",
  "type",
  "source",
  "build",
  "dockerfile",
  "public",
  "env",
  "depends_on",
  "resources",
  "preset",
  "storage",
  "retention",
  "lifecycle",
  "migrate",
  "command",
  "on_failure",
  "timeout",
  "health",
  "http",
  "api",
  "web",
  "db",
  "PORT",
  "OTEL_X",
  "__proto__",
  "constructor",
  "x",
];
const VALUES = [
  '"1.0"',
  "1.0",
  "fastapi",
  "nextjs",
  "postgres",
  "./api",
  "./web",
  "../x",
  "/abs",
  "true",
  "false",
  "null",
  "~",
  "5m",
  "0s",
  "25h",
  "10Gi",
  "10G",
  "small",
  "huge",
  "/health",
  "${api.url}",
  "${db.url",
  "$${x}",
  "${a.${b}}",
  "[]",
  "{}",
  "[api, web]",
  "[alembic, upgrade, head]",
  "'q'",
  '"unterminated',
  "&a x",
  "*a",
  "!tag x",
  "|",
  ">",
  "é",
  "🙂",
  "-1",
  "0x1F",
  "1e400",
];
const JUNK = [
  ":",
  "-",
  " ",
  "  ",
  "\t",
  '"',
  "'",
  "[",
  "]",
  "{",
  "}",
  ",",
  "$",
  "&",
  "*",
  "!",
  "#",
  "\n",
  "|",
  ">",
  "%",
  "@",
  "`",
  "?",
  "\r",
  "\u00a0",
  "\ufeff",
  "é",
  "\u2028",
  "a",
  "0",
];

function pick<T>(rnd: () => number, list: readonly T[]): T {
  return list[Math.floor(rnd() * list.length)]!;
}

/** A random document from the language's own words, at random depths. */
function randomDoc(rnd: () => number): string {
  const lines: string[] = [];
  const n = 1 + Math.floor(rnd() * 25);
  let depth = 0;
  for (let i = 0; i < n; i++) {
    depth = Math.max(0, Math.min(6, depth + Math.floor(rnd() * 3) - 1));
    const indent = "  ".repeat(depth);
    const r = rnd();
    if (r < 0.5) lines.push(`${indent}${pick(rnd, KEYS)}: ${pick(rnd, VALUES)}`);
    else if (r < 0.75) lines.push(`${indent}${pick(rnd, KEYS)}:`);
    else if (r < 0.9) lines.push(`${indent}- ${pick(rnd, VALUES)}`);
    else lines.push(`${indent}${Array.from({ length: 1 + Math.floor(rnd() * 8) }, () => pick(rnd, JUNK)).join("")}`);
  }
  return lines.join("\n") + (rnd() < 0.5 ? "\n" : "");
}

/** A valid example with a few small edits: the inputs closest to what people write. */
function mutate(rnd: () => number, text: string): string {
  let t = text;
  const edits = 1 + Math.floor(rnd() * 4);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(rnd() * (t.length + 1));
    const r = rnd();
    if (r < 0.3) t = t.slice(0, at) + t.slice(at + 1 + Math.floor(rnd() * 3));
    else if (r < 0.6) t = t.slice(0, at) + pick(rnd, JUNK) + t.slice(at);
    else if (r < 0.75) t = t.slice(0, at) + pick(rnd, VALUES) + t.slice(at);
    else {
      const lines = t.split("\n");
      const i = Math.floor(rnd() * lines.length);
      const j = Math.floor(rnd() * lines.length);
      if (r < 0.85) [lines[i], lines[j]] = [lines[j]!, lines[i]!];
      else if (r < 0.93) lines.splice(i, 0, lines[j]!);
      else lines[i] = ` ${lines[i]}`;
      t = lines.join("\n");
    }
  }
  return t;
}

function assertWellFormed(text: string, r: ValidationResult): void {
  const lines = text.replace(/^\uFEFF/, "").split(/\n/).length;
  if (r.ok) {
    expect(r.errors).toEqual([]);
    expect(r.config).toBeDefined();
  } else {
    expect(r.errors.length).toBeGreaterThan(0);
    expect(r.config).toBeUndefined();
  }
  for (const d of [...r.errors, ...r.warnings]) {
    expect(d.file).toBe("platform.yml");
    expect(d.line).toBeGreaterThanOrEqual(1);
    expect(d.col).toBeGreaterThanOrEqual(1);
    expect(d.line).toBeLessThanOrEqual(lines + 1);
    expect(d.code).toMatch(/^[a-z][a-z0-9-]*$/);
    expect(d.message.length).toBeGreaterThan(0);
  }
}

const fs = memFs();
function run(text: string): ValidationResult {
  const t0 = performance.now();
  let r: ValidationResult | undefined;
  try {
    r = validateConfig(text, { file: "platform.yml", projectDir: "/proj", fs });
  } catch (err) {
    expect.fail(`validateConfig threw on ${JSON.stringify(text)}: ${(err as Error).stack}`);
  }
  const ms = performance.now() - t0;
  if (ms > 1000) expect.fail(`took ${ms.toFixed(0)} ms on ${JSON.stringify(text.slice(0, 200))}`);
  return r!;
}

describe("fuzz: validation never crashes and always points somewhere real", () => {
  it("2000 random documents", () => {
    const rnd = prng(20261123);
    let ok = 0;
    for (let i = 0; i < 2000; i++) {
      const text = randomDoc(rnd);
      const r = run(text);
      assertWellFormed(text, r);
      if (r.ok) ok++;
    }
    expect(ok).toBeLessThan(2000);
  });

  it("2500 mutations of the spec's examples", () => {
    const rnd = prng(42);
    const seen = { valid: 0, invalid: 0 };
    for (let i = 0; i < 2500; i++) {
      const text = mutate(rnd, pick(rnd, SEEDS));
      const r = run(text);
      assertWellFormed(text, r);
      seen[r.ok ? "valid" : "invalid"]++;
    }
    // Both kinds occur, so the mutations explore the edge between valid and invalid.
    expect(seen.valid).toBeGreaterThan(50);
    expect(seen.invalid).toBeGreaterThan(500);
  });

  it("500 byte soups", () => {
    const rnd = prng(7);
    for (let i = 0; i < 500; i++) {
      const text = Array.from({ length: Math.floor(rnd() * 200) }, () =>
        rnd() < 0.7 ? pick(rnd, JUNK) : String.fromCharCode(Math.floor(rnd() * 0x3000)),
      ).join("");
      assertWellFormed(text, run(text));
    }
  });
});
