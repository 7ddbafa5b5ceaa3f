import { describe, expect, it } from "vitest";
import { scheduleProblem } from "../../../src/config/cron-schema.js";
import { buildPlan } from "../../../src/plan/build-plan.js";
import { lastLine, parseCronRuns, parseRedisFacts } from "../../../src/runtime/cron-runs.js";
import { all, brief, check, PROJECT, y } from "./helpers.js";

const BASE = y`
  version: "1.0"
  name: shop
  services:
    api:
      type: fastapi
      build: {source: ./api}
      public: true
      cron:
        - name: heartbeat
          schedule: "* * * * *"
          command: [python, -m, jobs.heartbeat]
        - name: nightly
          schedule: "0 3 * * *"
          command: python -m jobs.nightly && echo done
          timeout: 10m
`;

describe("cron: in platform.yml", () => {
  it("is valid on a service that runs code, and planned with its commands", () => {
    const r = check(BASE);
    expect(all(r).map(brief)).toEqual([]);
    const images = { python: "p", node: "n", postgres: "pg", caddy: "c" };
    const plan = buildPlan(
      r.config!,
      { project: "shop", env: "preview", appsDomain: "localhost", httpsPort: 443, projectDir: PROJECT, images },
      new Map(),
    );
    expect(plan.services[0]?.cron).toEqual([
      { name: "heartbeat", schedule: "* * * * *", command: ["python", "-m", "jobs.heartbeat"], timeoutSeconds: 3600 },
      { name: "nightly", schedule: "0 3 * * *", command: ["/bin/sh", "-c", "python -m jobs.nightly && echo done"], timeoutSeconds: 600 },
    ]);
  });

  it("refuses a bad schedule, a duplicate or bad name, and cron on a database", () => {
    const bad = check(BASE.replace('"0 3 * * *"', '"0 25 * * *"').replace("name: nightly", "name: heartbeat"));
    const got = all(bad).map(brief).join("\n");
    expect(got).toContain('cron-schedule schedule "0 25 * * *" its hour field "25" is outside 0-23');
    expect(got).toContain('cron-duplicate a second job named "heartbeat" on api');
    expect(
      all(check(BASE.replace("timeout: 10m", "timeout: 25h")))
        .map(brief)
        .join("\n"),
    ).toContain("timeout-range timeout 25h is more than 24h");
    expect(
      all(check(BASE.replace("name: nightly", "name: Nightly_Job")))
        .map(brief)
        .join("\n"),
    ).toContain("cron-name job name \"Nightly_Job\" is not lowercase letters, digits and '-'");
    const db = check(`${BASE}  db:\n    type: postgres\n    cron: [{name: x, schedule: "* * * * *", command: [true]}]\n`);
    expect(all(db).map(brief).join("\n")).toContain("cron-type cron jobs run a service's code; db is a postgres service");
  });

  it.each([
    ["* * * * *", undefined],
    ["*/10 * * * * *", undefined],
    ["61 * * * * *", /seconds field "61" is outside 0-59/],
    ["* * * *", /has 4 fields/],
  ])("schedule %s", (expr, problem) => {
    const p = scheduleProblem(expr);
    if (problem) expect(p).toMatch(problem);
    else expect(p).toBeUndefined();
  });
});

describe("what Studio reads of a Redis", () => {
  it("takes used_memory and the key count from redis-cli", () => {
    expect(parseRedisFacts("used_memory:1089416\n3\n")).toEqual({ usedMemoryBytes: 1089416, keys: 3 });
    expect(parseRedisFacts("used_memory:1089416\n(integer) 0\n")).toEqual({ usedMemoryBytes: 1089416, keys: 0 });
    expect(parseRedisFacts("NOAUTH Authentication required.\n")).toBeUndefined();
  });
});

describe("the cron runs log", () => {
  it("keeps whole lines, leaves out a cut one, and shows a run's last output line", () => {
    const text = [
      JSON.stringify({ job: "api/heartbeat", outcome: "succeeded", exitCode: 0, output: "a\nheartbeat written\n\n" }),
      JSON.stringify({ job: "api/heartbeat", outcome: "skipped", reason: "the previous run still runs" }),
      '{"job":"api/heart',
    ].join("\n");
    const runs = parseCronRuns(text);
    expect(runs.map((r) => r.outcome)).toEqual(["succeeded", "skipped"]);
    expect(lastLine(runs[0]?.output)).toBe("heartbeat written");
    expect(lastLine("x".repeat(100), 10)).toBe(`${"x".repeat(9)}…`);
  });
});
