import { toJsonSchema } from "./json-schema.js";
import { REFERENCE_SECTIONS } from "./reference-text.js";

/**
 * The platform.yml reference (docs/reference/platform-yml.md), generated from the JSON Schema (itself generated from the
 * zod schema), so the documentation is exactly what validation and editors enforce.
 */

/** The page that holds the generated reference, between the markers below. */
export const REFERENCE_FILE = "docs/reference/platform-yml.md";

export const REFERENCE_START = "<!-- config-reference:start -->";
export const REFERENCE_END = "<!-- config-reference:end -->";

type Schema = Record<string, unknown>;

function obj(v: unknown): Schema {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Schema) : {};
}

/** Values as a user would write them in platform.yml: `[alembic, upgrade, head]`, `{preset: small}`. */
export function toInlineYaml(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(toInlineYaml).join(", ")}]`;
  if (v !== null && typeof v === "object")
    return `{${Object.entries(v)
      .map(([k, x]) => `${k}: ${toInlineYaml(x)}`)
      .join(", ")}}`;
  if (typeof v === "string") return v === "" || /^[\d.]+$|^(true|false|null)$|[:#{}[\],]/.test(v) ? JSON.stringify(v) : v;
  return String(v);
}

function describeType(s: Schema): string {
  if (Array.isArray(s.anyOf)) return s.anyOf.map((b) => describeType(obj(b))).join(" or ");
  if (s.type === "array") return `list of ${describeType(obj(s.items))}s`;
  if (Array.isArray(s.type)) return s.type.join(" / ");
  if (s.type === "object" && s.additionalProperties && typeof s.additionalProperties === "object") {
    return `map of name to ${describeType(obj(s.additionalProperties))}`;
  }
  if (s.type === "object") return "object";
  return typeof s.type === "string" ? s.type : "any";
}

function allowed(s: Schema): string {
  if (s.const !== undefined) return `\`${String(s.const)}\``;
  if (Array.isArray(s.enum)) return [...new Set(s.enum.map(String))].map((e) => `\`${e}\``).join(", ");
  if (Array.isArray(s.anyOf)) return [...new Set(s.anyOf.map((b) => allowed(obj(b))).filter((a) => a !== ""))].join("; or ");
  if (typeof s.pattern === "string") return `pattern \`${s.pattern}\``;
  const names = obj(s.propertyNames);
  if (typeof names.pattern === "string") return `names: \`${names.pattern}\``;
  if (s.type === "boolean") return "`true`, `false`";
  if ((s.type === "number" || s.type === "integer") && typeof s.minimum === "number" && typeof s.maximum === "number")
    return `${s.minimum} to ${s.maximum}${s.type === "integer" ? ", whole" : ""}`;
  if (s.type === "object")
    return `fields: ${Object.keys(obj(s.properties))
      .map((k) => `\`${k}\``)
      .join(", ")}`;
  if (s.type === "array") return allowed(obj(s.items)) || "text items";
  return "any text";
}

function example(s: Schema): unknown {
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  if (s.type === "boolean") return true;
  return "text";
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

/**
 * Prose from the schema, outside code spans: `<project>` would be an HTML tag to a markdown
 * renderer (and an unclosed element to the docs site's Vue compiler), so angle brackets are escaped.
 */
function prose(text: string): string {
  return text.replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** One table row per field of an object schema. */
function fieldTable(s: Schema, prefix = ""): string {
  const required = new Set(Array.isArray(s.required) ? s.required.map(String) : []);
  const rows = Object.entries(obj(s.properties)).map(([name, raw]) => {
    const f = obj(raw);
    const status = required.has(name) ? "required" : f.default !== undefined ? `default \`${toInlineYaml(f.default)}\`` : "optional";
    const exText = `${name}: ${toInlineYaml(example(f))}`;
    return `| \`${prefix}${name}\` | ${describeType(f)} | ${status} | ${cell(allowed(f))} | \`${cell(exText)}\` | ${prose(cell(String(f.description ?? "")))} |`;
  });
  return ["| Field | Type | Required / default | Allowed values | Example | Description |", "|---|---|---|---|---|---|", ...rows].join(
    "\n",
  );
}

/** The markdown that goes between the config-reference markers of docs/reference/platform-yml.md. */
export function buildReferenceMarkdown(): string {
  const root = toJsonSchema();
  const services = obj(obj(root.properties).services);
  const service = obj(services.additionalProperties);
  const props = obj(service.properties);
  const build = obj(props.build);
  const resourcesObject = obj((obj(props.resources).anyOf as unknown[] | undefined)?.[1]);
  const lifecycle = obj(props.lifecycle);
  const migrate = obj(obj(lifecycle.properties).migrate);
  const health = obj(props.health);
  const scale = obj(props.scale);
  const telemetry = obj(obj(root.properties).telemetry);
  const notify = obj(obj(root.properties).notify);
  const channel = obj(notify.items);
  const parts = [
    "<!-- generated by `npm run gen:docs` from src/config/schema.ts: edit the schema, not this text -->",
    REFERENCE_SECTIONS.intro,
    "## Top level",
    fieldTable(root),
    `## Service fields: \`services.<name>\``,
    prose(String(services.description ?? "")),
    fieldTable(service),
    "## `build`",
    prose(String(build.description ?? "")),
    fieldTable(build, "build."),
    "## `resources`",
    prose(String(obj(props.resources).description ?? "")),
    fieldTable(resourcesObject, "resources."),
    REFERENCE_SECTIONS.presets,
    "## `lifecycle.migrate`",
    prose(String(migrate.description ?? "")),
    fieldTable(migrate, "lifecycle.migrate."),
    "## `health`",
    prose(String(health.description ?? "")),
    fieldTable(health, "health."),
    "## `scale`",
    prose(String(scale.description ?? "")),
    fieldTable(scale, "scale."),
    "## `telemetry`",
    prose(String(telemetry.description ?? "")),
    fieldTable(telemetry, "telemetry."),
    "## `notify`",
    prose(String(notify.description ?? "")),
    fieldTable(channel, "notify[]."),
    "### `notify[].email`",
    fieldTable(obj(obj(channel.properties).email), "notify[].email."),
    REFERENCE_SECTIONS.references,
    REFERENCE_SECTIONS.env,
    REFERENCE_SECTIONS.errors,
    REFERENCE_SECTIONS.editors,
  ];
  return `${parts.filter((p) => p !== "").join("\n\n")}\n`;
}

/** The page's text with the block between the markers replaced; everything else is left alone. */
export function replaceReferenceBlock(readme: string, block: string): string {
  const start = readme.indexOf(REFERENCE_START);
  const end = readme.indexOf(REFERENCE_END);
  if (start < 0 || end < start) throw new Error(`${REFERENCE_FILE} has no ${REFERENCE_START} ... ${REFERENCE_END} markers`);
  return `${readme.slice(0, start + REFERENCE_START.length)}\n${block}${readme.slice(end)}`;
}

/** The current block between the markers, for the sync test. */
export function extractReferenceBlock(readme: string): string | undefined {
  const start = readme.indexOf(REFERENCE_START);
  const end = readme.indexOf(REFERENCE_END);
  if (start < 0 || end < start) return undefined;
  return readme.slice(start + REFERENCE_START.length + 1, end);
}
