import { describe, expect, it } from "vitest";
import { cronProblem } from "../../../src/config/backup-schema.js";
import { formatDiagnostic } from "../../../src/config/index.js";
import { nextScheduled } from "../../../src/data/backup-schedule.js";
import { check, y } from "./helpers.js";

const report = (text: string) => {
  const r = check(text);
  return r.errors.map((d) => `${formatDiagnostic(d)}${d.hint ? ` -- ${d.hint}` : ""}`);
};

describe("backup: on a postgres service", () => {
  it("takes a schedule and keep", () => {
    const r = check(y`
      version: "1.0"
      name: shop
      services:
        database:
          type: postgres
          backup: {schedule: "0 3 * * *", keep: 14}
    `);
    expect(r.errors).toEqual([]);
    expect(r.config?.services.database?.backup).toEqual({ schedule: "0 3 * * *", keep: 14 });
  });

  it("is refused on other services, with where and what to do", () => {
    const errors = report(y`
      version: "1.0"
      name: shop
      services:
        api:
          type: fastapi
          source: .
          backup: {keep: 3}
    `);
    expect(errors.join("\n")).toContain("services.api.backup: backup is only for postgres services; api is a fastapi service");
  });

  it("a bad schedule says which field and how to write one; typos get a did-you-mean", () => {
    const errors = report(y`
      version: "1.0"
      name: shop
      services:
        database:
          type: postgres
          backup: {schedule: "0 25 * * *", kepp: 3}
    `).join("\n");
    expect(errors).toContain('schedule "0 25 * * *" its hour field "25" is outside 0-23');
    expect(errors).toContain("for 03:00 every day");
    expect(errors).toContain('unknown field "kepp" (did you mean "keep"?)');
    expect(
      report(y`
      version: "1.0"
      name: shop
      services:
        database:
          type: postgres
          backup: {keep: 0}
    `).join("\n"),
    ).toContain("services.database.backup.keep");
  });
});

describe("cron schedules", () => {
  const good = ["0 3 * * *", "30 */6 * * *", "0 0 1 jan *", "15 2 * * mon-fri", "0,30 8-18/2 1-15 * 0", "59 23 31 12 7"];
  const bad = [
    "0 3 * *",
    "0 3 * * * *",
    "60 3 * * *",
    "0 3 0 * *",
    "0 3 * 13 *",
    "5-1 * * * *",
    "*/0 * * * *",
    "a * * * *",
    "1-2-3 * * * *",
  ];

  it("accepts what cron accepts, and croner (which runs them) agrees", () => {
    for (const e of good) {
      expect(cronProblem(e), e).toBeUndefined();
      expect(nextScheduled(e), e).toBeInstanceOf(Date);
    }
    for (const e of bad) expect(cronProblem(e), e).toBeDefined();
  });

  it("the next run of 0 3 * * * is the next 03:00 UTC", () => {
    expect(nextScheduled("0 3 * * *", new Date("2026-11-26T10:41:00Z"))?.toISOString()).toBe("2026-11-27T03:00:00.000Z");
    expect(nextScheduled("0 3 * * *", new Date("2026-11-26T02:00:00Z"))?.toISOString()).toBe("2026-11-26T03:00:00.000Z");
  });
});

describe("version: on a postgres service", () => {
  const db = (version: string) => y`
      version: "1.0"
      name: shop
      services:
        database:
          type: postgres
          version: ${version}
    `;
  it("takes 15, 17 or 18, as a number or a string", () => {
    for (const v of ["15", "17", "18", '"17"']) {
      const r = check(db(v));
      expect(r.errors, v).toEqual([]);
      expect(r.config?.services.database?.version).toBe(v.replaceAll('"', ""));
    }
  });

  it("refuses a major no Debian suite here packages, naming the ones there are", () => {
    const errors = report(db("16")).join("\n");
    expect(errors).toContain("services.database.version");
    expect(errors).toMatch(/15.*17.*18/);
  });

  it("is refused on other services, with where the language's version comes from", () => {
    const errors = report(y`
      version: "1.0"
      name: shop
      services:
        web:
          type: nextjs
          source: .
          version: 17
    `).join("\n");
    expect(errors).toContain("services.web.version: version is only for postgres services; web is a nextjs service");
    expect(errors).toContain(".nvmrc");
  });
});
