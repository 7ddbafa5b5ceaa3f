/**
 * What a stage's test files did, from vitest's JSON reporter: counts for the closing line and
 * a per-file timing table that every `npm test` run prints and keeps (scripts/test.sh).
 */
export interface FileOutcome {
  file: string;
  stage: string;
  /** Wall time of the file's vitest process (start-up included), in ms. */
  ms: number;
  passed: number;
  failed: number;
  /** Tests that did not run: skipped, todo, or never reached. npm test never skips, so each one fails the run. */
  skipped: number;
  /** Why the process failed when no test did: a crash, a failed hook, the stage's time limit. */
  error?: string;
}

interface VitestJson {
  numPassedTests?: number;
  numFailedTests?: number;
  numPendingTests?: number;
  numTodoTests?: number;
  testResults?: { name: string; status: string; message?: string; startTime?: number; endTime?: number }[];
}

/** Counts from one vitest JSON report (one file's process, or several files in one process). */
export function countsOf(json: VitestJson): { passed: number; failed: number; skipped: number; failedFiles: string[] } {
  return {
    passed: json.numPassedTests ?? 0,
    failed: json.numFailedTests ?? 0,
    skipped: (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0),
    failedFiles: (json.testResults ?? []).filter((r) => r.status === "failed").map((r) => r.name),
  };
}

/** Per-file outcomes from a report of several files run in one process (the cluster stage). */
export function perFile(json: VitestJson, stage: string, relative: (abs: string) => string): FileOutcome[] {
  return (json.testResults ?? []).map((r) => {
    const tests = (r as { assertionResults?: { status: string }[] }).assertionResults ?? [];
    return {
      file: relative(r.name),
      stage,
      ms: (r.endTime ?? 0) - (r.startTime ?? 0),
      passed: tests.filter((t) => t.status === "passed").length,
      failed: tests.filter((t) => t.status === "failed").length,
      skipped: tests.filter((t) => t.status !== "passed" && t.status !== "failed").length,
      ...(r.status === "failed" && r.message ? { error: r.message.split("\n")[0] } : {}),
    };
  });
}

const minutes = (ms: number) => `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;

/** The timing table, longest file first, with each stage's wall time. */
export function timingTable(outcomes: FileOutcome[], stageWall: Record<string, number>): string[] {
  const lines = ["| stage | file | time | passed | failed | skipped |", "|---|---|---|---|---|---|"];
  for (const o of [...outcomes].sort((a, b) => b.ms - a.ms)) {
    const failed = o.error && o.failed === 0 ? `${o.failed} (${o.error.slice(0, 80)})` : String(o.failed);
    lines.push(`| ${o.stage} | ${o.file} | ${(o.ms / 1000).toFixed(1)} s | ${o.passed} | ${failed} | ${o.skipped} |`);
  }
  lines.push("", ...Object.entries(stageWall).map(([stage, ms]) => `- stage ${stage}: ${minutes(ms)} wall`));
  return lines;
}

/** The plain closing line CI reads ("N passed, N failed"), with its word before it. */
export function closingLine(outcomes: FileOutcome[]): string {
  const sum = (k: "passed" | "failed" | "skipped") => outcomes.reduce((n, o) => n + o[k], 0);
  const crashed = outcomes.filter((o) => o.error && o.failed === 0).length;
  const skipped = sum("skipped");
  return `tests: ${sum("passed")} passed, ${sum("failed") + crashed} failed${skipped ? `, ${skipped} skipped` : ""}`;
}
