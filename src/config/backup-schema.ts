import { z } from "zod";

/**
 * `backup:` on a postgres service: when backups are made on their own and how many are kept
 * (issue #26). `platform db backup` makes one at any time; `keep` applies to those too.
 */
export const backupSchema = z
  .strictObject({
    schedule: z
      .string()
      .describe(
        'When a backup is made on its own: a cron expression of 5 fields (minute hour day-of-month month day-of-week), in UTC, e.g. "0 3 * * *" (03:00 UTC every day). Optional: without it, backups are made by platform db backup.',
      )
      .meta({ examples: ["0 3 * * *", "30 */6 * * *"] })
      .optional(),
    keep: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .describe(
        "How many backups of the service are kept: after each backup, the oldest beyond this number are removed. Safety backups (made before a restore) are counted apart, so a restore can always be undone. From 1 to 1000. Default: every backup is kept.",
      )
      .meta({ examples: [14] })
      .optional(),
  })
  .describe("Backups of a postgres service (see docs/guide/backups.md). postgres only. Optional.")
  .meta({ examples: [{ schedule: "0 3 * * *", keep: 14 }] });

const FIELDS = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day-of-month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12, names: ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"] },
  { name: "day-of-week", min: 0, max: 7, names: ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] },
] as const;

/** One field of a cron expression: lists of *, n, n-m, each with an optional /step. */
function fieldProblem(text: string, f: (typeof FIELDS)[number]): string | undefined {
  const value = (v: string): number | undefined => {
    const named = "names" in f ? (f.names as readonly string[]).indexOf(v.toLowerCase()) : -1;
    if (named >= 0) return named + f.min;
    return /^\d+$/.test(v) ? Number(v) : undefined;
  };
  for (const item of text.split(",")) {
    const m = /^([^/]+)(?:\/(\d+))?$/.exec(item);
    const step = m?.[2] === undefined ? 1 : Number(m[2]);
    const range = m?.[1] ?? "";
    const [a, b] = range === "*" ? [f.min, f.max] : range.split("-").map(value);
    const end = range === "*" || range.includes("-") ? b : a;
    if (!m || step < 1 || a === undefined || end === undefined || range.split("-").length > 2)
      return `its ${f.name} field "${text}" is not a cron field (*, a number, a range a-b, a list a,b, each with an optional /step)`;
    if (a < f.min || end > f.max || a > end) return `its ${f.name} field "${text}" is outside ${f.min}-${f.max}`;
  }
  return undefined;
}

/** What is wrong with a cron expression, or undefined when it is a good one of 5 fields. */
export function cronProblem(expr: string): string | undefined {
  const fields = expr.trim().split(/\s+/).filter(Boolean);
  if (fields.length !== 5)
    return `has ${fields.length} field${fields.length === 1 ? "" : "s"}; a schedule has 5: minute hour day-of-month month day-of-week`;
  for (const [i, f] of FIELDS.entries()) {
    const problem = fieldProblem(fields[i] as string, f);
    if (problem) return problem;
  }
  return undefined;
}
