import type { LoadResult } from "../config/load-config.js";
// format.js imports no runtime modules: this stays light enough for validate.ts to re-export.
import { formatDiagnostic, type Paint, renderCodeFrame, toJsonDiagnostic } from "../config/format.js";
import type { Diagnostic } from "../config/types.js";
import { ExitCode } from "../errors.js";
import type { RendererKind } from "./render.js";

export interface ValidateOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

const ANSI = { red: "\u001b[31m", green: "\u001b[32m", yellow: "\u001b[33m", dim: "\u001b[2m", bold: "\u001b[1m", reset: "\u001b[0m" };
type Color = keyof typeof ANSI;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** The exit code: unreadable input is a usage problem (2), anything found in the file is 1. */
export function toExitCode(result: LoadResult): number {
  if (result.ok) return ExitCode.ok;
  return result.errors.some((e) => e.code === "unreadable") ? ExitCode.usage : ExitCode.failed;
}

/**
 * Everything `platform validate` prints, as a pure function of the result and the renderer
 * (json, tty: colors and code frames, plain: CI logs), so the output is tested without a process.
 */
export function renderValidateResult(result: LoadResult, file: string, mode: RendererKind, color = false): ValidateOutput {
  const exitCode = toExitCode(result);
  const services = result.config ? Object.keys(result.config.services) : [];
  if (mode === "json") {
    const body = {
      valid: result.ok,
      file,
      services,
      errors: result.errors.map(toJsonDiagnostic),
      warnings: result.warnings.map(toJsonDiagnostic),
    };
    return { stdout: `${JSON.stringify(body, null, 2)}\n`, stderr: "", exitCode };
  }
  const paint = (c: Color, text: string) => (color ? `${ANSI[c]}${text}${ANSI.reset}` : text);
  const framePaint: Paint = (style, text) => paint(style === "caret" ? "red" : "dim", text);
  const show = (d: Diagnostic): string => {
    const lines = [formatDiagnostic(d)];
    if (color)
      lines[0] = d.severity === "warning" ? lines[0]!.replace(" warning:", ` ${paint("yellow", "warning:")}`) : paint("bold", lines[0]!);
    if (mode === "tty" && result.source !== undefined) {
      const frame = renderCodeFrame(result.source, d.line, d.col, framePaint);
      if (frame !== "") lines.push(frame.replace(/^/gm, "  "));
    }
    if (d.hint) lines.push(`  hint: ${d.hint.replace(/\n/g, "\n        ")}`);
    return `${lines.join("\n")}\n`;
  };
  if (exitCode === ExitCode.usage) {
    // Nothing was read, so there is no position to show: say what stopped us, on stderr.
    const text = result.errors.map((d) => `${paint("red", "✖")} ${d.message}\n${d.hint ? `  hint: ${d.hint}\n` : ""}`).join("");
    return { stdout: "", stderr: text, exitCode };
  }
  const all = [...result.errors, ...result.warnings].sort((a, b) => a.line - b.line || a.col - b.col);
  if (result.ok) {
    const head = `${paint("green", "✓")} Configuration is valid\n${plural(services.length, "service")}: ${services.join(", ")}\n`;
    return { stdout: head + result.warnings.map(show).join(""), stderr: "", exitCode };
  }
  const summary = `${paint("red", "✖")} Configuration is invalid: ${plural(result.errors.length, "error")}${result.warnings.length > 0 ? `, ${plural(result.warnings.length, "warning")}` : ""}\n`;
  return { stdout: all.map(show).join("") + summary, stderr: "", exitCode };
}
