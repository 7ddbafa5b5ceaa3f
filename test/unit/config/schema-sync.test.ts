import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SCHEMA_FILE, toJsonSchema, toJsonSchemaText } from "../../../src/config/json-schema.js";
import { buildReferenceMarkdown, extractReferenceBlock, REFERENCE_FILE } from "../../../src/config/reference-doc.js";

/** Generated files must match the zod schema: run `npm run gen:docs` when these fail. */

describe("generated from the schema", () => {
  it(`${SCHEMA_FILE} is up to date (npm run gen:docs)`, () => {
    expect(readFileSync(SCHEMA_FILE, "utf8")).toBe(toJsonSchemaText());
  });

  it(`${REFERENCE_FILE}, the platform.yml reference, is up to date (npm run gen:docs)`, () => {
    expect(extractReferenceBlock(readFileSync(REFERENCE_FILE, "utf8"))).toBe(buildReferenceMarkdown());
  });

  it("every field has a description", () => {
    const missing: string[] = [];
    const walk = (s: Record<string, unknown>, path: string) => {
      for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, Record<string, unknown>>)) {
        if (typeof v.description !== "string" || v.description.length < 10) missing.push(`${path}${k}`);
        walk(v, `${path}${k}.`);
        for (const branch of (v.anyOf ?? []) as Array<Record<string, unknown>>) walk(branch, `${path}${k}.`);
      }
      const extra = s.additionalProperties;
      if (extra && typeof extra === "object") walk(extra as Record<string, unknown>, `${path}*.`);
    };
    walk(toJsonSchema(), "");
    expect(missing).toEqual([]);
  });

  it("documents every reference form and the editor set-up", () => {
    const md = buildReferenceMarkdown();
    for (const form of [
      "${<service>.url}",
      "${<service>.external_url}",
      "${<service>.host}",
      "${<service>.port}",
      "${<service>.user}",
      "${<service>.password}",
      "${<service>.database}",
      "$${...}",
    ]) {
      expect(md).toContain(`\`${form}\``);
    }
    expect(md).toContain("# yaml-language-server: $schema=");
    expect(md).toContain('"fileMatch": ["platform.yml"]');
  });
});

describe("src/config stays light", () => {
  it("imports nothing beyond zod, yaml, node builtins and itself", () => {
    const dir = "src/config";
    const bad: string[] = [];
    for (const f of readdirSync(dir).filter((n) => n.endsWith(".ts"))) {
      const text = readFileSync(join(dir, f), "utf8");
      for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)[^;]*?from\s+"([^"]+)"/g)) {
        const spec = m[1]!;
        if (!(spec === "zod" || spec === "yaml" || spec.startsWith("node:") || spec.startsWith("./"))) bad.push(`${f}: ${spec}`);
      }
      expect(text.split("\n").length, `${f} is over 300 lines`).toBeLessThanOrEqual(300);
    }
    expect(bad).toEqual([]);
  });

  it("validate.ts loads zod and yaml only inside its action", () => {
    const text = readFileSync("src/cli/validate.ts", "utf8");
    const staticImports = [...text.matchAll(/^import (?!type)[^;]*from "([^"]+)"/gm)].map((m) => m[1]);
    expect(staticImports.every((s) => !/index\.js|load-config|validate-config|schema/.test(s!))).toBe(true);
  });
});
