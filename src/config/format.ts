import type { Diagnostic } from "./types.js";

/**
 * `platform.yml:14:7 services.api.depends_on[0]: unknown service "dtabase" (did you mean "database"?)`.
 * Where comes first (file:line:col, then the config path) so editors and terminals can jump to
 * it; warnings say so right after the position.
 */
export function formatDiagnostic(d: Diagnostic): string {
  const severity = d.severity === "warning" ? " warning:" : "";
  const path = d.path === "" ? "" : ` ${d.path}:`;
  return `${d.file}:${d.line}:${d.col}${severity}${path} ${d.message}`;
}

/** The stable JSON form of a diagnostic (--json): fixed keys, hint null when there is none. */
export function toJsonDiagnostic(d: Diagnostic): {
  file: string;
  line: number;
  col: number;
  path: string;
  code: string;
  message: string;
  hint: string | null;
} {
  return { file: d.file, line: d.line, col: d.col, path: d.path, code: d.code, message: d.message, hint: d.hint ?? null };
}

export type Paint = (style: "caret" | "gutter", text: string) => string;
const plain: Paint = (_style, text) => text;

const MAX_WIDTH = 120;

/**
 * The offending line (with the one before it for context) and a caret under the column:
 *
 *     13 |     depends_on:
 *   > 14 |       - dtabase
 *        |         ^
 */
export function renderCodeFrame(source: string, line: number, col: number, paint: Paint = plain): string {
  const lines = source.split("\n");
  const target = lines[line - 1];
  if (target === undefined) return "";
  const width = String(line).length;
  const gutter = (n: number | undefined, mark: boolean) =>
    paint("gutter", `${mark ? ">" : " "} ${n === undefined ? " ".repeat(width) : String(n).padStart(width)} |`);
  const out: string[] = [];
  const prev = lines[line - 2];
  if (prev !== undefined && prev.trim() !== "") out.push(`${gutter(line - 1, false)} ${clip(prev.replace(/\r$/, ""), 0).text}`);
  const shown = clip(target.replace(/\r$/, ""), col - 1);
  out.push(`${gutter(line, true)} ${shown.text}`);
  // Keep tabs in the padding so the caret lines up with what the terminal shows above it.
  const pad = shown.text.slice(0, Math.max(0, col - 1 - shown.offset)).replace(/[^\t]/g, " ");
  out.push(`${gutter(undefined, false)} ${pad}${paint("caret", "^")}`);
  return out.join("\n");
}

/** Long lines are cut to a window around the column, so the caret stays on screen. */
function clip(text: string, index: number): { text: string; offset: number } {
  if (text.length <= MAX_WIDTH) return { text, offset: 0 };
  const start = Math.max(0, Math.min(index - 40, text.length - MAX_WIDTH));
  const body = text.slice(start, start + MAX_WIDTH);
  return start === 0 ? { text: `${body}...`, offset: 0 } : { text: `...${body}...`, offset: start - 3 };
}
