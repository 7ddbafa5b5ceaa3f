/** One line of a stack's cron runs log (images/scheduler/scheduler.mjs writes them). */
export interface CronRun {
  readonly job: string;
  readonly scheduled?: string;
  readonly started?: string;
  readonly finished?: string;
  readonly seconds?: number;
  readonly exitCode?: number;
  readonly outcome: "succeeded" | "failed" | "timed out" | "error" | "skipped";
  readonly reason?: string;
  readonly error?: string;
  readonly output?: string;
}

/** The log's lines, oldest first; a line cut short (a scheduler stopped mid-write) is left out. */
export function parseCronRuns(text: string): CronRun[] {
  const out: CronRun[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const r = JSON.parse(line) as CronRun;
      if (typeof r.job === "string" && typeof r.outcome === "string") out.push(r);
    } catch {
      // a partial last line
    }
  }
  return out;
}

/** The last non-empty line of a run's output, for a table cell. */
export function lastLine(output: string | undefined, width = 60): string {
  const line =
    (output ?? "")
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean)
      .at(-1) ?? "";
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

/** `redis-cli info memory` and `dbsize` output -> what Studio shows of a Redis. */
export function parseRedisFacts(text: string): { usedMemoryBytes: number; keys: number } | undefined {
  const memory = /^used_memory:(\d+)\s*$/m.exec(text);
  const keys = /^(?:\(integer\) )?(\d+)\s*$/m.exec(text.replace(/^used_memory[^\n]*\n?/gm, ""));
  return memory && keys ? { usedMemoryBytes: Number(memory[1]), keys: Number(keys[1]) } : undefined;
}
