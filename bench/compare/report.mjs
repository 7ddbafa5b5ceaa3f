// The tables of bench/README.md from one run's samples: medians, ratios to compose in the same
// run, the goals of issue 17, and the peak memory of each tool.
import { cpus, loadavg } from "node:os";
import { median, medianSpread } from "./measure.mjs";

const LABEL = {
  cold: "cold (images and build cache removed)",
  nochange: "no change",
  api: "api code changed",
  env: "env value changed (api)",
  web: "web code changed",
  both: "api and web code changed",
};
// [max ratio to compose, max seconds] per case; undefined: no goal.
const GOAL = { cold: [0.75], nochange: [1.0, 2.5], api: [0.8], env: [0.8] };

const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
const med = (xs, f) => (xs?.length ? median(xs.map(f)) : undefined);

function goalText(c, ratio, ms) {
  const g = GOAL[c];
  if (!g) return "";
  const ok = ratio <= g[0] && (g[1] === undefined || ms <= g[1] * 1000);
  return `≤ ${g[0]}×${g[1] ? ` and ≤ ${g[1]} s` : ""}: ${ok ? "met" : "missed"}`;
}

export function printTables(results, cases) {
  const m = (tool, c) => med(results.samples[`${tool}/${c}`], (x) => x.ms);
  const lines = [
    `${results.started.slice(0, 16).replace("T", " ")} UTC, commit ${results.commit}, ${results.runs} runs per case, interleaved; ${cpus().length} × ${cpus()[0]?.model}; load average at the end ${loadavg()[0].toFixed(1)}`,
    "",
    "| case | platform median (min–max) | compose median (min–max) | ratio | goal |",
    "|---|---|---|---|---|",
  ];
  for (const c of cases) {
    const p = m("platform", c),
      d = m("compose", c);
    if (p === undefined || d === undefined) continue;
    const runs = (tool) =>
      medianSpread(
        results.samples[`${tool}/${c}`].map((x) => x.ms),
        s,
      );
    lines.push(`| ${LABEL[c]} | ${runs("platform")} | ${runs("compose")} | ${(p / d).toFixed(2)} | ${goalText(c, p / d, p)} |`);
  }
  if (results.limit.length) {
    const l = median(results.limit.map((x) => x.ms));
    const p = m("platform", "cold");
    const parts = results.limit.map((x) => `${x.slowest} ${s(x.builds[x.slowest])} + start ${s(x.startMs)}`).join("; ");
    lines.push(
      `| physical limit: slowest build alone + its start | ${medianSpread(
        results.limit.map((x) => x.ms),
        s,
      )} | | platform ${(p / l).toFixed(2)}× the limit | ≤ 1.1×: ${p / l <= 1.1 ? "met" : "missed"} |`,
    );
    lines.push("", `limit runs: ${parts}`);
  }
  if (cases.includes("both") && cases.includes("api") && cases.includes("web")) {
    lines.push("", "| two builds at once (api + web changed) | wall | sum of each alone | ratio |", "|---|---|---|---|");
    for (const t of ["platform", "compose"]) {
      const both = m(t, "both"),
        sum = m(t, "api") + m(t, "web");
      lines.push(`| ${t} | ${s(both)} | ${s(sum)} | ${(both / sum).toFixed(2)} |`);
    }
  }
  lines.push(
    "",
    "Peak memory (median of the runs' peaks, MiB):",
    "",
    "| case | platform CLI process | platform CLI + engine + plugins | edge (Caddy) | compose process |",
    "|---|---|---|---|---|",
  );
  for (const c of cases) {
    const p = results.samples[`platform/${c}`],
      d = results.samples[`compose/${c}`];
    if (!p || !d) continue;
    lines.push(
      `| ${LABEL[c]} | ${med(p, (x) => x.mem.selfMb)} | ${med(p, (x) => x.mem.treeMb)} | ${med(p, (x) => x.mem.watchedMb)} | ${med(d, (x) => x.mem.treeMb)} |`,
    );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}
