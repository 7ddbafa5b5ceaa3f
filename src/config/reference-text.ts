import { MAX_SIZE_TEXT } from "./prescan.js";
import { POSTGRES_PROPERTIES } from "./rules-references.js";
import { PRESETS } from "./units.js";

/** The hand-written parts of README's platform.yml reference; the field tables are generated. */

function size(bytes: number): string {
  return bytes >= 1024 ** 3 ? `${bytes / 1024 ** 3}Gi` : `${bytes / 1024 ** 2}Mi`;
}

const presetRows = Object.entries(PRESETS).map(([name, p]) => `| \`${name}\` | ${p.cpus} | ${size(p.memoryBytes)} | ${p.pidsLimit} |`);

const pgParts = POSTGRES_PROPERTIES.filter((p) => p !== "url");

export const REFERENCE_SECTIONS = {
  intro: [
    "One `platform.yml` at the root of the project describes every service. Paths in it are",
    "relative to its directory. This reference is generated from the schema that `platform validate`",
    "enforces; the same schema is published as JSON Schema in `schema/platform.schema.json`.",
    "",
    "```yaml",
    'version: "1.0"',
    "name: shop",
    "services:",
    "  database:",
    "    type: postgres",
    "    resources: {preset: small, storage: 10Gi, retention: permanent}",
    "  api:",
    "    type: fastapi",
    "    build: {source: ./api, dockerfile: Dockerfile}",
    "    public: true",
    "    env:",
    "      DATABASE_URL: ${database.url}",
    "      CORS_ORIGINS: ${web.external_url}",
    "    depends_on: [database]",
    "    lifecycle:",
    "      migrate: {command: [alembic, upgrade, head], on_failure: abort, timeout: 5m}",
    "    health: {http: /health}",
    "  web:",
    "    type: nextjs",
    "    source: ./web",
    "    public: true",
    "    env:",
    "      API_URL: ${api.url}",
    "    depends_on: [api]",
    "```",
  ].join("\n"),

  presets: [
    "Presets (a migration runs under its service's limits):",
    "",
    "| Preset | CPUs | Memory | Processes |",
    "|---|---|---|---|",
    ...presetRows,
  ].join("\n"),

  references: [
    "### References in `env` values",
    "",
    "Values in `env` may contain references, resolved at deploy time. Only `depends_on` orders",
    "startup: a reference alone never does (so `api` may name `${web.external_url}` while `web`",
    "depends on `api`).",
    "",
    "| Reference | Available on | Value |",
    "|---|---|---|",
    "| `${<service>.url}` | every service | Internal URL (`http://...`), for calls from server to server inside the platform. For a postgres service: its connection string `postgresql://user:password@host:port/database`. |",
    "| `${<service>.external_url}` | services with `public: true` | Public HTTPS URL, `https://<project>-<service>-<word>-<word>.<apps domain>`: for browsers and CORS settings. An error on a service that is not public; postgres never is. |",
    ...pgParts.map(
      (p) =>
        `| \`\${<service>.${p}}\` | postgres services | The ${p === "database" ? "database name" : p} part of the connection string. An error on other types. |`,
    ),
    "| `${secrets.<NAME>}` | every service | The environment's secret `NAME`, set with `platform secrets set NAME` (see [Secrets](#secrets)). Names are letters, digits and `_`. A secret the environment lacks is a warning in `validate` and stops `deploy` before any build. `secrets` is therefore not a service name. |",
    "| `$${...}` | anywhere | Escape: the literal text `${...}`. |",
    "",
    "Malformed references (`${api.url` unclosed, `${}` empty, `${a.${b}}` nested, `${api}` without a",
    "property) are errors. A reference to an unknown service or property is an error with a",
    "did-you-mean. Warnings: `${x.url}` of a service that is not in `depends_on` (it may start",
    "later); `${x.external_url}` in a variable that looks server-side (anything but `NEXT_PUBLIC_*`",
    "and names containing `CORS`, `ORIGIN`, `PUBLIC`, `EXTERNAL`, `REDIRECT`, `CALLBACK`,",
    "`ALLOWED_HOST`, `CSRF` or `TRUSTED`): server-to-server calls belong on `${x.url}`.",
  ].join("\n"),

  env: [
    "### Environment variables",
    "",
    "- Names: `[A-Za-z_][A-Za-z0-9_]*`.",
    "- `PORT` is an error: the platform assigns it, and every service must listen on `$PORT`.",
    "- Names starting with `PLATFORM_` are errors: reserved for the platform.",
    "- `OTEL_*` names are a warning: they override the OpenTelemetry settings the platform injects.",
    "- Values are text. Numbers and booleans are accepted without a warning and kept exactly as",
    '  written (`8000` gives `"8000"`, `1.10` gives `"1.10"`, not `1.1`; `true` gives `"true"`),',
    "  because that is what everyone who writes them means. `null` (`NAME:` with nothing after it),",
    '  lists and maps are errors: write `""` for an empty value.',
  ].join("\n"),

  errors: [
    "### Errors in platform.yml",
    "",
    "`platform validate` (and `platform deploy`, before it touches anything) checks the whole file",
    "offline and reports every problem at once, each starting with where it is, then a hint:",
    "",
    "```",
    'platform.yml:14:7 services.api.depends_on[0]: unknown service "dtabase" (did you mean "database"?)',
    "  hint: services in this file: database, api, web",
    "platform.yml:9:5 warning: services.worker: worker is not public and no service depends on it or refers to it",
    "  hint: set public: true to give it a URL, or pass ${worker.url} to the service that calls it",
    "✖ Configuration is invalid: 1 error, 1 warning",
    "```",
    "",
    "A terminal also gets the offending line with a caret under the column. `--json` prints",
    '`{"valid", "file", "services", "errors", "warnings"}`, each problem with `file`, `line`, `col`,',
    "`path`, `code`, `message` and `hint`. Exit codes: 0 valid (warnings allowed), 1 invalid,",
    "2 usage error or unreadable file.",
    "",
    "Checked besides the fields above: YAML syntax (tabs, indentation, unclosed quotes, duplicate",
    "keys, one document only; a BOM is fine), unknown fields (with did-you-mean), names (DNS",
    "labels; `<project>-<service>-<word>-<word>` must fit in 63 characters, so project + service",
    "length is at most 44), `depends_on` (unknown services, itself, cycles, named in order:",
    "`api -> web -> api`), source and build paths (exist, are directories, stay inside the",
    "project, also through symbolic links; the Dockerfile exists), and what each type allows",
    "(postgres: no source, build, migrate, health or `public: true`). Warnings: a service that",
    "is not public and that nothing depends on or refers to; a database nothing refers to; a",
    "dependency listed twice.",
    "",
    `Hostile input gets a clear error in milliseconds, never a stack trace: files over ${MAX_SIZE_TEXT},`,
    "binary or non-UTF-8 files, nesting deeper than 64 levels, alias bombs (more than 100 alias",
    "expansions), more than 1000 services. After 200 errors (or warnings) the rest are summed up in one line.",
  ].join("\n"),

  editors: [
    "### Editor support",
    "",
    "The JSON Schema (`schema/platform.schema.json`, draft-07) gives completion, hover docs and",
    "squiggles in any editor that uses yaml-language-server (VS Code's YAML extension, Neovim,",
    "JetBrains, Helix, ...). Point the first line of `platform.yml` at it, by path or URL:",
    "",
    "```yaml",
    "# yaml-language-server: $schema=../../schema/platform.schema.json",
    "```",
    "",
    "or map it once for every `platform.yml`, the way a SchemaStore catalog entry does:",
    "",
    "```json",
    '{ "name": "platform.yml", "description": "platform deployment config", "fileMatch": ["platform.yml"], "url": "<URL or path of platform.schema.json>" }',
    "```",
    "",
    'In VS Code settings that is `"yaml.schemas": { "./schema/platform.schema.json": "platform.yml" }`.',
  ].join("\n"),
};
