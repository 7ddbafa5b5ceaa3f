import { z } from "zod";
import { configSchema } from "./schema.js";

export const SCHEMA_FILE = "schema/platform.schema.json";

/**
 * The published JSON Schema, generated from the zod schema so the two cannot drift. Draft-07,
 * because it is what yaml-language-server and SchemaStore support best. "input" mode: fields
 * with defaults are optional, as they are for the person writing the file.
 */
export function toJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(configSchema, { target: "draft-7", io: "input" }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  return {
    $schema,
    title: "platform.yml",
    $comment: "Generated from src/config/schema.ts by `npm run gen:docs`; do not edit by hand.",
    ...rest,
  };
}

/** The file's exact text: stable key order, two-space indent, trailing newline. */
export function toJsonSchemaText(): string {
  return `${JSON.stringify(toJsonSchema(), null, 2)}\n`;
}
