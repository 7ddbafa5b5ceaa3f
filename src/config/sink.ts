import { toPathString, type Locator, type PathSeg } from "./locate.js";
import type { Diagnostic } from "./types.js";

/** Where a diagnostic points: the value (default) or key at its own path, another path, or an offset. */
export type At = "key" | "value" | { path: readonly PathSeg[]; prefer?: "key" | "value" } | { offset: number };

export interface Report {
  path: readonly PathSeg[];
  code: string;
  message: string;
  hint?: string;
  at?: At;
}

/**
 * More than this many problems of one severity is no longer a list anyone reads; past it we
 * count instead, which also keeps hostile files (thousands of bad entries) fast.
 */
export const MAX_DIAGNOSTICS = 200;

/** Collects every problem; rules never stop at the first one. */
export class DiagnosticSink {
  readonly errors: Diagnostic[] = [];
  readonly warnings: Diagnostic[] = [];
  private readonly seen = new Set<string>();
  private readonly dropped = { error: 0, warning: 0 };
  private readonly firstDropped: { error?: Diagnostic; warning?: Diagnostic } = {};

  constructor(
    private readonly file: string,
    readonly locator: Locator,
  ) {}

  error(r: Report): void {
    this.add(r, "error");
  }

  warn(r: Report): void {
    this.add(r, "warning");
  }

  /**
   * True once errors are being dropped: rules may skip expensive work (did-you-mean). Dropped
   * warnings never set it, so a flood of warnings cannot hide an error.
   */
  get full(): boolean {
    return this.dropped.error > 0;
  }

  /** Adds an "N more" note per severity, at the first problem that was not shown. */
  finish(): void {
    for (const severity of ["error", "warning"] as const) {
      const first = this.firstDropped[severity];
      if (!first) continue;
      const list = severity === "error" ? this.errors : this.warnings;
      // Rules stop early once errors overflow, so only the warning count is exact.
      const message =
        severity === "error"
          ? `more than ${MAX_DIAGNOSTICS} errors; the rest are not shown`
          : `${this.dropped.warning} more warnings not shown`;
      list.push({ ...first, code: "too-many-problems", message, hint: "fix the problems above and run validate again" });
      this.firstDropped[severity] = undefined;
    }
  }

  private add(r: Report, severity: Diagnostic["severity"]): void {
    const at = r.at ?? "value";
    const offset =
      typeof at === "string"
        ? this.locator.offsetOf(r.path, at)
        : "offset" in at
          ? at.offset
          : this.locator.offsetOf(at.path, at.prefer ?? "key");
    const { line, col } = this.locator.position(offset);
    const d: Diagnostic = { file: this.file, line, col, path: toPathString(r.path), code: r.code, message: r.message, severity };
    if (r.hint !== undefined) d.hint = r.hint;
    const key = `${severity}|${line}|${col}|${d.path}|${d.code}|${d.message}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const list = severity === "error" ? this.errors : this.warnings;
    if (list.length < MAX_DIAGNOSTICS) {
      list.push(d);
      return;
    }
    this.dropped[severity]++;
    this.firstDropped[severity] ??= d;
  }
}

/** File order: by line, then column; errors before warnings at the same spot. */
export function sortDiagnostics(list: Diagnostic[]): Diagnostic[] {
  const last = (d: Diagnostic) => (d.code === "too-many-problems" ? 1 : 0);
  return [...list].sort(
    (a, b) => last(a) - last(b) || a.line - b.line || a.col - b.col || (a.severity === b.severity ? 0 : a.severity === "error" ? -1 : 1),
  );
}
