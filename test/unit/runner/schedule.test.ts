import { describe, expect, it } from "vitest";
import { closingLine, countsOf, type FileOutcome, perFile, timingTable } from "../../runner/report.js";
import { type Job, orderJobs, takeNext, UNKNOWN_FILE_MS } from "../../runner/schedule.js";

const job = (file: string, expectedMs: number, solo = false): Job => ({ file, expectedMs, solo });

describe("the order of a stage's files (test/runner/schedule.ts)", () => {
  it("starts the longest first, a file the timings do not know as a middling one", () => {
    const jobs = orderJobs(["a", "b", "c", "new"], { a: 10_000, b: 300_000, c: 90_000 }, () => false);
    expect(jobs.map((j) => [j.file, j.expectedMs])).toEqual([
      ["b", 300_000],
      ["c", 90_000],
      ["new", UNKNOWN_FILE_MS],
      ["a", 10_000],
    ]);
  });

  it("puts the solo files first, one after the other, then the rest longest first", () => {
    const jobs = orderJobs(["short-solo", "long", "longer-solo", "mid"], { "short-solo": 1, long: 90, "longer-solo": 50, mid: 10 }, (f) =>
      f.endsWith("-solo"),
    );
    expect(jobs.map((j) => j.file)).toEqual(["longer-solo", "short-solo", "long", "mid"]);
  });

  it("fills the lanes, and never more", () => {
    const queue = [job("a", 3), job("b", 2), job("c", 1)];
    const running: Job[] = [];
    running.push(takeNext(queue, running, 2)!);
    running.push(takeNext(queue, running, 2)!);
    expect(running.map((j) => j.file)).toEqual(["a", "b"]);
    expect(takeNext(queue, running, 2)).toBeUndefined();
    expect(queue.map((j) => j.file)).toEqual(["c"]);
  });

  it("runs a solo file alone: it waits for the running ones, and nothing starts beside it", () => {
    const queue = [job("solo", 5, true), job("b", 2)];
    const running = [job("a", 9)];
    expect(takeNext(queue, running, 2), "a shorter file does not jump the waiting solo one").toBeUndefined();
    running.length = 0;
    const solo = takeNext(queue, running, 2)!;
    expect(solo.file).toBe("solo");
    expect(takeNext(queue, [solo], 2)).toBeUndefined();
    expect(takeNext(queue, [], 2)?.file).toBe("b");
  });
});

describe("a run's report (test/runner/report.ts)", () => {
  const json = {
    numPassedTests: 3,
    numFailedTests: 1,
    numPendingTests: 1,
    numTodoTests: 0,
    testResults: [
      {
        name: "/r/test/integration/a.test.ts",
        status: "failed",
        message: "boom\nstack",
        startTime: 1_000,
        endTime: 61_000,
        assertionResults: [{ status: "passed" }, { status: "failed" }, { status: "skipped" }],
      },
      {
        name: "/r/test/integration/b.test.ts",
        status: "passed",
        startTime: 0,
        endTime: 5_000,
        assertionResults: [{ status: "passed" }, { status: "passed" }],
      },
    ],
  };

  it("counts a skipped test as one: npm test never skips", () => {
    expect(countsOf(json)).toEqual({ passed: 3, failed: 1, skipped: 1, failedFiles: ["/r/test/integration/a.test.ts"] });
  });

  it("gives each file of a one-process stage its time and counts", () => {
    const files = perFile(json, "cluster", (f) => f.replace("/r/", ""));
    expect(files).toEqual([
      { file: "test/integration/a.test.ts", stage: "cluster", ms: 60_000, passed: 1, failed: 1, skipped: 1, error: "boom" },
      { file: "test/integration/b.test.ts", stage: "cluster", ms: 5_000, passed: 2, failed: 0, skipped: 0 },
    ]);
  });

  it("lists the longest file first, and ends with the closing line CI reads", () => {
    const outcomes: FileOutcome[] = [
      { file: "short", stage: "unit", ms: 1_000, passed: 10, failed: 0, skipped: 0 },
      { file: "long", stage: "docker", ms: 200_000, passed: 5, failed: 0, skipped: 0 },
      { file: "crashed", stage: "docker", ms: 3_000, passed: 0, failed: 0, skipped: 0, error: "stage docker exceeded 45 min" },
    ];
    const table = timingTable(outcomes, { docker: 125_000 });
    expect(table.slice(2, 5).map((l) => l.split(" | ")[1])).toEqual(["long", "crashed", "short"]);
    expect(table).toContain("- stage docker: 2 min 5 s wall");
    expect(closingLine(outcomes)).toBe("tests: 15 passed, 1 failed");
    expect(closingLine([{ file: "x", stage: "unit", ms: 1, passed: 2, failed: 0, skipped: 3 }])).toBe(
      "tests: 2 passed, 0 failed, 3 skipped",
    );
  });
});
