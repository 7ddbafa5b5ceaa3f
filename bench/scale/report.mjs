// The scale bench's table for bench/README.md: per size and case, each tool's median with min
// and max, the ratio to compose in the same run, the peak memory of each command's process
// tree; then the growth per added service (least squares over the sizes' medians) and the
// goals of issue 29.
import { cpus } from "node:os";
import { median, medianSpread } from "../compare/measure.mjs";

const LABEL = {
  cold: "cold deploy",
  nochange: "no change",
  change: "one service changed",
  status: "status (compose: ps)",
  validate: "validate (compose: config)",
};
const s = (ms) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${(ms / 1000).toFixed(2)} s`);

/** Least-squares slope of y over x: the cost of one more service. */
export function slope(points) {
  const n = points.length;
  if (n < 2) return undefined;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  const num = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0);
  const den = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  return den ? num / den : undefined;
}

export function printScaleTables(results) {
  const ms = (n, t, c) => (results.samples[`${n}/${t}/${c}`] ?? []).map((x) => x.ms);
  // The tree's peak, or the process's own (VmHWM) when it ended before the first 50 ms sample.
  const mem = (n, t, c) => Math.max(0, ...(results.samples[`${n}/${t}/${c}`] ?? []).map((x) => Math.max(x.treeMb, x.selfMb)));
  const med = (n, t, c) => (ms(n, t, c).length ? median(ms(n, t, c)) : undefined);
  const sizes = results.sizes.filter((n) => Object.keys(results.samples).some((k) => k.startsWith(`${n}/`)));
  const load = results.load.length ? `${Math.min(...results.load).toFixed(1)}–${Math.max(...results.load).toFixed(1)}` : "?";
  const lines = [
    `${results.started.slice(0, 16).replace("T", " ")} UTC, commit ${results.commit}, ${results.runs} runs per warm case, interleaved; ` +
      `${cpus().length} × ${cpus()[0]?.model}; load average (1 min) during the runs ${load}` +
      (results.publicUrls === false ? "; no public service (--no-public)" : ""),
    "",
    "| services | case | platform median (min–max) | compose median (min–max) | ratio | peak memory, platform tree / compose tree |",
    "|---|---|---|---|---|---|",
  ];
  for (const n of sizes) {
    for (const c of Object.keys(LABEL)) {
      const p = ms(n, "platform", c),
        d = ms(n, "compose", c);
      if (!p.length && !d.length) continue;
      const ratio = p.length && d.length ? (median(p) / median(d)).toFixed(2) : "";
      lines.push(
        `| ${n} | ${LABEL[c]} | ${p.length ? medianSpread(p, s) : ""} | ${d.length ? medianSpread(d, s) : ""} | ${ratio} | ` +
          `${mem(n, "platform", c)} / ${mem(n, "compose", c)} MiB |`,
      );
    }
  }
  lines.push("", "Growth per added service (least squares over the medians of the sizes measured):", "");
  for (const c of ["nochange", "change", "status", "cold"]) {
    const per = ["platform", "compose"].map((t) => {
      const k = slope(sizes.map((n) => [n, med(n, t, c)]).filter(([, y]) => y !== undefined));
      return k === undefined ? "?" : `${k.toFixed(0)} ms`;
    });
    const k = Number.parseFloat(per[0]);
    const goal = (c === "nochange" || c === "change") && Number.isFinite(k) ? ` (goal ≤ 60 ms: ${k <= 60 ? "met" : "missed"})` : "";
    lines.push(`- ${LABEL[c]}: platform ${per[0]} per service${goal}, compose ${per[1]}`);
  }
  const at = (n, c) => {
    const p = med(n, "platform", c),
      d = med(n, "compose", c);
    return p === undefined || d === undefined ? undefined : { p, d, r: p / d };
  };
  const c20 = at(20, "change");
  if (c20)
    lines.push(`- one service changed at 20 services: ${c20.r.toFixed(2)}× compose's (goal ≤ 0.6×: ${c20.r <= 0.6 ? "met" : "missed"})`);
  const st40 = med(40, "platform", "status");
  if (st40 !== undefined) lines.push(`- status at 40 services: ${s(st40)} (goal ≤ 1 s: ${st40 <= 1000 ? "met" : "missed"})`);
  for (const p of results.pruned)
    lines.push(
      `- ${p.size} services: own build records pruned ${p.removed} (${(p.bytes / 1e9).toFixed(2)} GB), left ${p.left}; others' records gone meanwhile ${p.foreign}`,
    );
  process.stdout.write(`${lines.join("\n")}\n`);
}
