/**
 * Regenerates what is derived from the zod schema in src/config/schema.ts:
 *   - schema/platform.schema.json (the JSON Schema editors use)
 *   - docs/reference/platform-yml.md, between the config-reference markers (nothing else)
 * Run: npm run gen:docs. test/unit/config/schema-sync.test.ts fails when either is stale.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { SCHEMA_FILE, toJsonSchemaText } from "../src/config/json-schema.js";
import { buildReferenceMarkdown, REFERENCE_FILE, replaceReferenceBlock } from "../src/config/reference-doc.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const schemaPath = join(root, SCHEMA_FILE);
mkdirSync(dirname(schemaPath), { recursive: true });
writeFileSync(schemaPath, toJsonSchemaText());
const referencePath = join(root, REFERENCE_FILE);
writeFileSync(referencePath, replaceReferenceBlock(readFileSync(referencePath, "utf8"), buildReferenceMarkdown()));
process.stdout.write(`wrote ${SCHEMA_FILE} and ${REFERENCE_FILE}\n`);
