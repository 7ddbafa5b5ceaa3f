/**
 * The end of `npm test` (scripts/test.sh): `tsx test/runner/summary.ts OUT_DIR [--write-timings]`.
 * Prints every file's time, longest first, with each stage's wall time, keeps the table in
 * $PLATFORM_HOME/logs/test-timings.md, and ends with the plain closing line CI reads.
 * --write-timings records the integration files' times in test/timings.json, the order the next runs start the
 * files in (commit it after a measured run on a quiet machine).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { platformHome } from "../../src/home/layout.js";
import { ROOT, STAGES } from "./files.js";
import { closingLine, type FileOutcome, timingTable } from "./report.js";

const out = process.argv[2];
if (!out) {
  console.error("usage: tsx test/runner/summary.ts OUT_DIR [--write-timings]");
  process.exit(2);
}
const outcomes: FileOutcome[] = [];
const wall: Record<string, number> = {};
for (const stage of STAGES) {
  const path = join(out, `${stage}.json`);
  if (!existsSync(path)) continue;
  const r = JSON.parse(readFileSync(path, "utf8")) as { wallMs: number; outcomes: FileOutcome[] };
  outcomes.push(...r.outcomes);
  wall[stage] = r.wallMs;
}
const table = [`# Test timings, ${new Date().toISOString()}`, "", ...timingTable(outcomes, wall)];
const logs = join(platformHome(), "logs");
mkdirSync(logs, { recursive: true });
writeFileSync(join(logs, "test-timings.md"), `${table.join("\n")}\n`);
console.log(`\n${table.slice(2).join("\n")}\n(kept in ${join(logs, "test-timings.md")})`);

if (process.argv.includes("--write-timings")) {
  const timings = Object.fromEntries(
    outcomes
      .filter((o) => o.file.endsWith(".test.ts") && o.stage !== "unit")
      .sort((a, b) => a.file.localeCompare(b.file))
      .map((o) => [o.file, Math.round(o.ms)]),
  );
  writeFileSync(join(ROOT, "test", "timings.json"), `${JSON.stringify(timings, null, 2)}\n`);
}
console.log(closingLine(outcomes));
