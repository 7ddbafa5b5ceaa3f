import { describe, expect, it } from "vitest";
import { isCursorable, toCell, trimStatement } from "../../../src/studio/db-values.js";

describe("database console values and statements", () => {
  it("shows values as text like psql", () => {
    expect(toCell(null)).toBeNull();
    expect(toCell(new Date("2026-11-24T01:00:00Z"))).toBe("2026-11-24T01:00:00.000Z");
    expect(toCell(Buffer.from([1, 255]))).toBe("\\x01ff");
    expect(toCell({ a: 1 })).toBe('{"a":1}');
    expect(toCell(42)).toBe("42");
  });

  it("reads SELECT, TABLE and VALUES through a cursor, never a data-modifying statement", () => {
    expect(isCursorable("  -- list\nselect * from t")).toBe(true);
    expect(isCursorable("/* x */ TABLE events")).toBe(true);
    expect(isCursorable("WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x")).toBe(false);
    expect(isCursorable("INSERT INTO t VALUES (1)")).toBe(false);
    expect(trimStatement(" SELECT 1;; \n")).toBe("SELECT 1");
  });
});
