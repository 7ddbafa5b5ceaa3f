import type { SourceSnapshot } from "./types.js";

/**
 * Prisma in a Node project, and which engines it runs on. Its Rust engines (the query engine
 * library, the schema engine that migrations run) are not npm packages: `prisma generate` and
 * the first migration fetch them from binaries.prisma.sh, which a build or a server without the
 * internet cannot reach. Its JavaScript engines need nothing fetched: the query compiler
 * (`engineType = "client"` in the generator, a driver adapter in the client) and the WebAssembly
 * schema engine (`engine: "js"` and an `adapter` in prisma.config.ts) for migrations.
 */
export interface PrismaUse {
  /** The generator asks for the query compiler (engineType = "client"). */
  readonly queryCompiler: boolean;
  /** prisma.config.ts runs migrations through a driver adapter (engine: "js"). */
  readonly jsSchemaEngine: boolean;
}

const CONFIGS = ["prisma.config.ts", "prisma.config.mts", "prisma.config.js"];

/** How the project uses Prisma; undefined when it does not (no prisma or @prisma/client in package.json). */
export function detectPrisma(src: SourceSnapshot, dependencies: readonly string[]): PrismaUse | undefined {
  if (!dependencies.some((d) => d === "prisma" || d === "@prisma/client")) return undefined;
  const schemas = src.files.filter((f) => f.endsWith(".prisma")).map((f) => src.read(f) ?? "");
  const config = CONFIGS.map((f) => src.read(f)).find((t) => t !== undefined) ?? "";
  return {
    queryCompiler: schemas.some((t) => /^\s*engineType\s*=\s*"client"/m.test(t)),
    jsSchemaEngine: /\bengine\s*:\s*["']js["']/.test(config),
  };
}

/** What `platform plan` says of it (on its "prisma:" line; the Dockerfile's notes too). */
export function prismaNote(use: PrismaUse): string {
  if (use.queryCompiler && use.jsSchemaEngine)
    return "prisma: its JavaScript engines (the query compiler, migrations through the driver adapter): nothing fetched from binaries.prisma.sh";
  const rust = [
    ...(use.queryCompiler ? [] : ["prisma generate fetches the query engine"]),
    ...(use.jsSchemaEngine ? [] : ["a migration fetches the schema engine"]),
  ].join(", ");
  return `prisma: its Rust engines (${rust} from binaries.prisma.sh); where a build or server cannot reach it, use its JavaScript engines: engineType = "client" in the generator, engine: "js" and an adapter in prisma.config.ts (docs: guide/builds, "Prisma")`;
}

/** The summary's Prisma field, from a recipe's notes. */
export function prismaSummary(notes: readonly string[]): { prisma?: string } {
  const note = notes.find((n) => n.startsWith("prisma: "));
  return note ? { prisma: note.slice("prisma: ".length) } : {};
}
