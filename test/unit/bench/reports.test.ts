import { afterEach, describe, expect, it, vi } from "vitest";
import { median, medianSpread } from "../../../bench/compare/measure.mjs";
import { printTables } from "../../../bench/compare/report.mjs";
import { printScaleTables, slope } from "../../../bench/scale/report.mjs";

/** What a report printed, one string. */
function printed(print: () => void): string {
  let out = "";
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  print();
  vi.restoreAllMocks();
  return out;
}

const run = (ms: number, treeMb = 200) => ({ ms, mem: { selfMb: 120, treeMb, watchedMb: 50 }, selfMb: 120, treeMb });

afterEach(() => vi.restoreAllMocks());

describe("bench reports", () => {
  it("medianSpread gives the median with min and max, or the median alone for one run", () => {
    const s = (v: number) => v.toFixed(1);
    expect(medianSpread([3, 1, 2], s)).toBe("2.0 (1.0–3.0)");
    expect(medianSpread([4, 1, 2, 3], s)).toBe("2.5 (1.0–4.0)");
    expect(medianSpread([7], s)).toBe("7.0");
    expect(median([5, 1, 9, 3])).toBe(4);
  });

  it("the compare table has each tool's median with min and max, the ratio and the goal", () => {
    const results = {
      started: "2026-11-28T02:59:00Z",
      commit: "abc1234",
      runs: 3,
      limit: [],
      samples: {
        "platform/api": [run(4310), run(4400), run(4080)],
        "compose/api": [run(5040), run(5180), run(5060)],
        "platform/env": [run(3760), run(3790), run(3770)],
        "compose/env": [run(4800), run(4970), run(4860)],
      },
    };
    const out = printed(() => printTables(results, ["api", "env"]));
    expect(out).toContain("| api code changed | 4.31 s (4.08 s–4.40 s) | 5.06 s (5.04 s–5.18 s) | 0.85 | ≤ 0.8×: missed |");
    expect(out).toContain("| env value changed (api) | 3.77 s (3.76 s–3.79 s) | 4.86 s (4.80 s–4.97 s) | 0.78 | ≤ 0.8×: met |");
  });

  it("the scale table fits the growth per service and checks the goals", () => {
    const sizes = [1, 5, 10, 20, 40];
    const samples: Record<string, ReturnType<typeof run>[]> = {};
    for (const n of sizes) {
      // 53 ms per service for the platform, 710 for compose, with a spread around each median.
      const p = 2900 + 53 * n;
      const c = 3000 + 710 * n;
      samples[`${n}/platform/change`] = [run(p - 100), run(p), run(p + 50)];
      samples[`${n}/compose/change`] = [run(c), run(c - 30), run(c + 90)];
    }
    const results = { started: "2026-11-28T02:48:00Z", commit: "abc1234", runs: 3, sizes, load: [0.2, 41], samples, pruned: [] };
    const out = printed(() => printScaleTables(results));
    expect(out).toContain("| 20 | one service changed | 3.96 s (3.86 s–4.01 s) | 17.2 s (17.2 s–17.3 s) | 0.23 | 200 / 200 MiB |");
    expect(out).toContain("- one service changed: platform 53 ms per service (goal ≤ 60 ms: met), compose 710 ms");
    expect(out).toContain("- one service changed at 20 services: 0.23× compose's (goal ≤ 0.6×: met)");
    expect(out).toContain("load average (1 min) during the runs 0.2–41.0");
    expect(
      slope([
        [1, 10],
        [2, 12],
        [3, 14],
      ]),
    ).toBeCloseTo(2);
    expect(slope([[1, 10]])).toBeUndefined();
  });
});
