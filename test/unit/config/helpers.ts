import { posix } from "node:path";
import { expect } from "vitest";
import {
  formatDiagnostic,
  validateConfig,
  type ConfigFs,
  type Diagnostic,
  type ValidateOptions,
  type ValidationResult,
} from "../../../src/config/index.js";

/** Project directory of the in-memory file system. */
export const PROJECT = "/proj";

type Entry = "dir" | "file" | { link: string };

/** The default project: app directories with and without Dockerfiles, a file, a symlink out. */
export const TREE: Record<string, Entry> = {
  "": "dir",
  api: "dir",
  "api/Dockerfile": "file",
  "api/Dockerfile.dev": "file",
  web: "dir",
  "web/package.json": "file",
  worker: "dir",
  "worker/Dockerfile": "file",
  "README.md": "file",
  shared: { link: "/elsewhere/shared" },
  inner: { link: "/proj/api" },
};

/** A ConfigFs over a small tree, so rule tests need no real directories. */
export function memFs(tree: Record<string, Entry> = TREE): ConfigFs {
  const rel = (p: string) => posix.relative(PROJECT, p);
  const entry = (p: string): Entry | undefined => (p === PROJECT ? "dir" : tree[rel(p)]);
  const target = (p: string): string => {
    const e = entry(p);
    return typeof e === "object" ? e.link : p;
  };
  return {
    stat(p) {
      const t = target(p);
      if (t.startsWith("/elsewhere")) return { isDirectory: true, isFile: false };
      const e = entry(t);
      if (e === undefined || typeof e === "object") return undefined;
      return { isDirectory: e === "dir", isFile: e === "file" };
    },
    realpath(p) {
      return entry(p) === undefined ? undefined : target(p);
    },
    readdir(p) {
      const r = rel(p);
      return Object.keys(tree)
        .filter((k) => k !== "" && posix.dirname(k) === (r === "" ? "." : r))
        .map((k) => posix.basename(k));
    },
  };
}

/** Strips the common indentation of a template literal, so YAML cases read naturally in tests. */
export function y(strings: TemplateStringsArray, ...values: unknown[]): string {
  const raw = strings.reduce((acc, s, i) => acc + s + (i < values.length ? String(values[i]) : ""), "");
  const lines = raw
    .replace(/^\n/, "")
    .replace(/\n[ ]*$/, "\n")
    .split("\n");
  const indent = Math.min(...lines.filter((l) => l.trim() !== "").map((l) => /^ */.exec(l)![0].length));
  return lines.map((l) => l.slice(indent)).join("\n");
}

export function check(text: string, opts: ConfigFs | { fs?: ConfigFs; secrets?: ValidateOptions["secrets"] } = memFs()): ValidationResult {
  const { fs, secrets } = "stat" in opts ? { fs: opts, secrets: undefined } : opts;
  return validateConfig(text, { file: "platform.yml", projectDir: PROJECT, fs: fs ?? memFs(), ...(secrets ? { secrets } : {}) });
}

export function all(r: ValidationResult): Diagnostic[] {
  return [...r.errors, ...r.warnings];
}

/** `line:col code message` of every diagnostic: what the table tests compare against. */
export function brief(d: Diagnostic): string {
  return `${d.line}:${d.col} ${d.code} ${d.message}`;
}

/** Asserts one diagnostic matches exactly, and shows them all when none does. */
export function expectDiagnostic(r: ValidationResult, expected: string, hint?: string | RegExp): Diagnostic {
  const found = all(r).find((d) => brief(d) === expected);
  if (!found)
    expect.fail(
      `expected "${expected}" among:\n${
        all(r)
          .map((d) => `  ${brief(d)}\n    (${formatDiagnostic(d)})`)
          .join("\n") || "  (none)"
      }`,
    );
  if (hint !== undefined) {
    if (typeof hint === "string") expect(found!.hint).toContain(hint);
    else expect(found!.hint).toMatch(hint);
  }
  return found!;
}

/** A valid, warning-free file that invalid-rules.test.ts edits in one place per case. */
export const BASE = y`
  version: "1.0"
  name: shop
  services:
    database:
      type: postgres
    api:
      type: fastapi
      source: ./api
      public: true
      env:
        DATABASE_URL: \${database.url}
      depends_on: [database]
    web:
      type: nextjs
      source: ./web
      public: true
      env:
        API_URL: \${api.url}
      depends_on: [api]
`;
