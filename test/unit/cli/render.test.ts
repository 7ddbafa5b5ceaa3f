import { describe, expect, it } from "vitest";
import { parseSince } from "../../../src/cli/flags.js";
import { pickRenderer } from "../../../src/cli/render.js";
import { formatTable } from "../../../src/cli/table.js";

describe("renderer choice", () => {
  it.each([
    [{ json: true }, {}, true, "json"],
    [{}, {}, true, "tty"],
    [{}, {}, false, "plain"],
    [{}, { CI: "true" }, true, "plain"],
    [{}, { TERM: "dumb" }, true, "plain"],
  ] as const)("%j %j tty=%s -> %s", (o, env, tty, kind) => {
    expect(pickRenderer(o, env as NodeJS.ProcessEnv, tty)).toBe(kind);
  });
});

describe("logs --since", () => {
  const now = Date.parse("2026-11-23T12:00:00Z");
  it.each([
    ["10m", now - 600_000],
    ["2h", now - 7_200_000],
    ["30s", now - 30_000],
    ["2026-11-23T11:00:00Z", now - 3_600_000],
  ])("%s", (since, ms) => {
    expect(parseSince(since, now)).toBe(Math.floor(ms / 1000));
  });
  it("refuses junk with a usage hint", () => {
    expect(() => parseSince("yesterday-ish", now)).toThrow(/duration like 10m/);
  });
});

describe("tables", () => {
  it("aligns columns", () => {
    expect(
      formatTable(
        ["A", "BB"],
        [
          ["xyz", "1"],
          ["", "22"],
        ],
      ),
    ).toBe("A    BB\nxyz  1\n     22\n");
  });
});
