/**
 * The few facts recipes need from a pyproject.toml. A small reader of the TOML subset that
 * pyproject files use (tables, dotted keys, strings, booleans, arrays of strings, inline
 * tables read as raw text) rather than a dependency: plan stays free of I/O and of
 * packages, and a value it cannot read only makes a recipe say less, never fail.
 */

export type TomlValue = string | boolean | string[] | { raw: string };

export interface Pyproject {
  /** `[project]` is present (PEP 621 metadata). */
  readonly hasProject: boolean;
  readonly requiresPython?: string;
  /** `[project] dependencies`. */
  readonly dependencies: readonly string[];
  /** `dependencies` is listed in `[project] dynamic`: computed by the build backend. */
  readonly dynamicDependencies: boolean;
  readonly hasBuildSystem: boolean;
  /** `[tool.uv] package`: whether uv installs the project itself. */
  readonly uvPackage?: boolean;
  /** `[tool.poetry]` is present. */
  readonly hasPoetry: boolean;
  /** `[tool.poetry.dependencies] python`, e.g. "^3.11". */
  readonly poetryPython?: string;
  /** Names under `[tool.poetry.dependencies]`. */
  readonly poetryDependencies: readonly string[];
  /** `[tool.fastapi] entrypoint`, e.g. "app.main:app" (read by `fastapi run`). */
  readonly fastapiEntrypoint?: string;
  /** `[project] name`. */
  readonly name?: string;
  /** `[tool.uv.workspace] members`: present when this pyproject is a uv workspace root. */
  readonly uvWorkspaceMembers?: readonly string[];
  /**
   * The dependency groups beside the runtime ones, which a service's image leaves out: PEP 735's
   * [dependency-groups], uv's older tool.uv.dev-dependencies ("dev"), Poetry's
   * [tool.poetry.group.NAME] and its older [tool.poetry.dev-dependencies] ("dev").
   */
  readonly devGroups: readonly string[];
}

/** Drops a `#` comment that is not inside a string. */
function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "#") return line.slice(0, i);
  }
  return line;
}

function bracketDepth(text: string): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "[" || c === "{") depth++;
    else if (c === "]" || c === "}") depth--;
  }
  return depth;
}

function unquoteKey(key: string): string {
  return key
    .split(".")
    .map((k) =>
      k
        .trim()
        .replace(/^"(.*)"$/, "$1")
        .replace(/^'(.*)'$/, "$1"),
    )
    .join(".");
}

function parseStrings(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'/g))
    out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? ""));
  return out;
}

function parseValue(raw: string): TomlValue {
  const v = raw.trim();
  if (v === "true" || v === "false") return v === "true";
  if (v.startsWith("[")) return parseStrings(v);
  const str = /^"((?:[^"\\]|\\.)*)"$|^'([^']*)'$/.exec(v);
  if (str) return str[1] !== undefined ? str[1].replace(/\\(.)/g, "$1") : (str[2] ?? "");
  return { raw: v };
}

/** Flat map of "table.key" to value, plus the set of tables that were opened. */
export function parseTomlSubset(text: string): { values: Map<string, TomlValue>; tables: Set<string> } {
  const values = new Map<string, TomlValue>();
  const tables = new Set<string>();
  let table = "";
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = stripComment(lines[i] ?? "").trim();
    if (!line) continue;
    const header = /^\[\[?\s*([^\]]+?)\s*\]\]?$/.exec(line);
    if (header) {
      table = unquoteKey(header[1] ?? "");
      tables.add(table);
      continue;
    }
    const eq = line.indexOf("=");
    if (eq <= 0) continue;
    const key = unquoteKey(line.slice(0, eq));
    let raw = line.slice(eq + 1).trim();
    if (raw.startsWith('"""') || raw.startsWith("'''")) {
      // Multi-line strings (descriptions): skip to the closing delimiter.
      const delim = raw.slice(0, 3);
      while (raw.indexOf(delim, 3) < 0 && i + 1 < lines.length) raw += `\n${lines[++i] ?? ""}`;
      continue;
    }
    while (bracketDepth(raw) > 0 && i + 1 < lines.length) raw += ` ${stripComment(lines[++i] ?? "").trim()}`;
    const full = table ? `${table}.${key}` : key;
    values.set(full, parseValue(raw));
    // A dotted key opens its tables too: `tool.poetry.name = "x"` means [tool.poetry] exists.
    const parts = full.split(".");
    for (let n = 1; n < parts.length; n++) tables.add(parts.slice(0, n).join("."));
  }
  return { values, tables };
}

function asString(v: TomlValue | undefined): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function asStrings(v: TomlValue | undefined): string[] {
  return Array.isArray(v) ? v : [];
}

export function parsePyproject(text: string): Pyproject {
  const { values, tables } = parseTomlSubset(text);
  const dynamic = values.get("project.dynamic");
  const deps = values.get("project.dependencies");
  const uvPackage = values.get("tool.uv.package");
  const poetryPrefix = "tool.poetry.dependencies.";
  const poetryDependencies = [...values.keys()].filter((k) => k.startsWith(poetryPrefix)).map((k) => k.slice(poetryPrefix.length));
  const poetryPython = values.get(`${poetryPrefix}python`);
  return {
    hasProject: tables.has("project"),
    requiresPython: asString(values.get("project.requires-python")),
    dependencies: Array.isArray(deps) ? deps : [],
    dynamicDependencies: Array.isArray(dynamic) && dynamic.includes("dependencies"),
    hasBuildSystem: tables.has("build-system"),
    uvPackage: typeof uvPackage === "boolean" ? uvPackage : undefined,
    hasPoetry: tables.has("tool.poetry"),
    poetryPython:
      asString(poetryPython) ??
      (poetryPython && typeof poetryPython === "object" && !Array.isArray(poetryPython)
        ? /version\s*=\s*["']([^"']+)["']/.exec(poetryPython.raw)?.[1]
        : undefined),
    poetryDependencies,
    fastapiEntrypoint: asString(values.get("tool.fastapi.entrypoint")),
    name: asString(values.get("project.name")),
    uvWorkspaceMembers: tables.has("tool.uv.workspace") ? asStrings(values.get("tool.uv.workspace.members")) : undefined,
    devGroups: devGroupsOf(values, tables),
  };
}

function devGroupsOf(values: ReadonlyMap<string, TomlValue>, tables: ReadonlySet<string>): string[] {
  const groups = new Set<string>();
  for (const k of values.keys()) {
    const pep735 = /^dependency-groups\.([^.]+)$/.exec(k);
    if (pep735?.[1]) groups.add(pep735[1]);
  }
  for (const t of tables) {
    const poetry = /^tool\.poetry\.group\.([^.]+)$/.exec(t);
    if (poetry?.[1]) groups.add(poetry[1]);
  }
  if (values.has("tool.uv.dev-dependencies") || tables.has("tool.poetry.dev-dependencies")) groups.add("dev");
  return [...groups].sort();
}
