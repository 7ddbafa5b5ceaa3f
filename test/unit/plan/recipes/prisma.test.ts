import { describe, expect, it } from "vitest";
import { detectPrisma, prismaNote, prismaSummary } from "../../../../src/plan/recipes/prisma.js";
import type { SourceSnapshot } from "../../../../src/plan/recipes/types.js";

const snapshot = (files: Record<string, string>): SourceSnapshot => ({ files: Object.keys(files).sort(), read: (p) => files[p] });
const JS_SCHEMA = 'generator client {\n  provider   = "prisma-client-js"\n  engineType = "client"\n}\n';
const RUST_SCHEMA = 'generator client {\n  provider = "prisma-client-js"\n  // engineType = "client"\n}\n';
const JS_CONFIG = 'export default defineConfig({ experimental: { adapter: true }, engine: "js", adapter: async () => new PrismaPg({}) });';

describe("Prisma and its engines (plan/recipes/prisma.ts)", () => {
  it("a project without prisma or @prisma/client: nothing to say", () => {
    expect(detectPrisma(snapshot({ "prisma/schema.prisma": JS_SCHEMA }), ["next", "pg"])).toBeUndefined();
  });

  it("the JavaScript engines: the query compiler and migrations through the adapter, nothing fetched", () => {
    const use = detectPrisma(snapshot({ "prisma/schema.prisma": JS_SCHEMA, "prisma.config.ts": JS_CONFIG }), ["prisma", "@prisma/client"]);
    expect(use).toEqual({ queryCompiler: true, jsSchemaEngine: true });
    expect(prismaNote(use!)).toMatch(/^prisma: its JavaScript engines .*nothing fetched from binaries\.prisma\.sh$/);
  });

  it("the Rust engines (a commented-out engineType does not count): says what each fetches and what to change", () => {
    const use = detectPrisma(snapshot({ "prisma/schema.prisma": RUST_SCHEMA }), ["@prisma/client"]);
    expect(use).toEqual({ queryCompiler: false, jsSchemaEngine: false });
    const note = prismaNote(use!);
    expect(note).toContain("prisma generate fetches the query engine, a migration fetches the schema engine");
    expect(note).toContain('engineType = "client" in the generator, engine: "js" and an adapter in prisma.config.ts');
  });

  it("half way (the query compiler, migrations on the Rust schema engine): names only the schema engine", () => {
    const note = prismaNote(detectPrisma(snapshot({ "prisma/schema/schema.prisma": JS_SCHEMA }), ["prisma"])!);
    expect(note).toMatch(/Rust engines \(a migration fetches the schema engine from binaries\.prisma\.sh\)/);
  });

  it("the recipe summary's field comes from the note", () => {
    expect(prismaSummary(["x", "prisma: its JavaScript engines"])).toEqual({ prisma: "its JavaScript engines" });
    expect(prismaSummary(["x"])).toEqual({});
  });
});
