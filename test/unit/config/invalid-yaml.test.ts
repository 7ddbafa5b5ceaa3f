import { describe, expect, it } from "vitest";
import { check, expectDiagnostic } from "./helpers.js";

/** YAML-level mistakes and hostile input: a clear, positioned error, fast, never a throw. */

const OK = 'version: "1.0"\nname: shop\nservices:\n  api:\n    type: fastapi\n    source: ./api\n    public: true\n';
const bomb = [
  'a: &a ["x","x","x","x","x","x","x","x","x"]',
  "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]",
  "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]",
  "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]",
  "e: [*d,*d,*d,*d,*d,*d,*d,*d,*d]",
].join("\n");

const cases = [
  {
    name: "tab indentation",
    yaml: OK.replace("    type", "\ttype"),
    expect: "5:1 yaml-tab a tab is used for indentation",
    hint: "replace the tab with spaces",
  },
  {
    name: "duplicate key",
    yaml: `${OK}  api:\n    type: nextjs\n`,
    expect: '8:3 duplicate-key "api" appears twice in the same map (first on line 4)',
    hint: "rename one",
  },
  {
    name: "duplicate field",
    yaml: OK.replace("    public: true\n", "    public: true\n    public: false\n"),
    expect: '8:5 duplicate-key "public" appears twice in the same map (first on line 7)',
  },
  {
    name: "two documents",
    yaml: `${OK}---\nname: other\n`,
    expect: "8:1 multiple-documents several YAML documents in one file; platform.yml holds exactly one",
    hint: "remove the '---' line",
  },
  {
    name: "unclosed quote",
    yaml: OK.replace('"1.0"', '"1.0'),
    expect: "8:1 yaml-unclosed-quote a quoted string is not closed",
    hint: "the string starts at line 1, column 10",
  },
  {
    name: "wrong indentation",
    yaml: OK.replace("    source", "   source"),
    expect: "6:1 yaml-indent wrong indentation: all mapping items must start at the same column",
    hint: "same column",
  },
  {
    name: "over-indented field",
    yaml: OK.replace("    source", "      source"),
    expect: "5:11 yaml-indent wrong indentation: the next line is indented further than this field",
  },
  {
    name: "missing colon",
    yaml: OK.replace("  api:\n", "  api\n"),
    expect: "4:3 YAML syntax error: implicit keys need to be on a single line".replace("4:3 ", "4:3 yaml-syntax "),
    hint: "`name: value`",
  },
  {
    name: "unclosed bracket",
    yaml: OK.replace("    public: true\n", "    depends_on: [web\n"),
    expect: '7:17 yaml-unclosed-bracket "[" is not closed',
    hint: "add the closing ]",
  },
  { name: "empty file", yaml: "", expect: "1:1 empty the file is empty", hint: "a minimal platform.yml" },
  { name: "only comments", yaml: "# todo\n", expect: "1:1 empty the file is empty" },
  {
    name: "a list",
    yaml: "- api\n- web\n",
    expect: "1:1 not-a-map the file is a list; it must be a map of fields (version, name, services)",
  },
  {
    name: "a scalar",
    yaml: "hello\n",
    expect: "1:1 not-a-map the file is a single value; it must be a map of fields (version, name, services)",
  },
  {
    name: "binary junk",
    yaml: "\u007fELF\u0002\u0001\u0001\u0000",
    expect: "1:1 binary control character U+007F: this does not look like a text file",
  },
  {
    name: "NUL in the middle",
    yaml: OK.replace("shop", "sh\u0000op"),
    expect: "2:9 binary control character U+0000: this does not look like a text file",
  },
  {
    name: "deep flow nesting",
    yaml: `a: ${"[".repeat(100_000)}${"]".repeat(100_000)}`,
    expect: "1:67 too-deep nesting is deeper than 64 levels",
  },
  {
    name: "deep block nesting",
    yaml: Array.from({ length: 200 }, (_, i) => `${"  ".repeat(i)}a:`).join("\n"),
    expect: "65:129 too-deep nesting is deeper than 64 levels",
  },
  { name: "deep compact sequences", yaml: `${"- ".repeat(20_000)}x\n`, expect: "1:129 too-deep nesting is deeper than 64 levels" },
  {
    name: "alias bomb",
    yaml: bomb,
    expect: "2:8 alias-limit aliases expand to too much data (limit 100 expansions); this looks like an alias bomb",
  },
  {
    name: "alias without anchor",
    yaml: OK.replace("    public: true\n", "    public: true\n    env: *common\n"),
    expect: "8:10 unknown-alias unknown alias *common: no &common anchor before it",
    hint: "define &common",
  },
  {
    name: "too large",
    yaml: `a: "${"x".repeat(300 * 1024)}"\n`,
    expect: "1:1 too-large file is 301 KiB; platform.yml may be at most 256 KiB",
  },
  { name: "custom tag", yaml: OK.replace("shop", "!Ref shop"), expect: "2:7 yaml-tag unresolved tag: !Ref", hint: "remove the ! tag" },
  { name: "complex key", yaml: "? [a, b]\n: x\n", expect: "1:3 complex-key a key must be a plain name, not a list or map" },
];

describe("invalid platform.yml: YAML and hostile input", () => {
  it.each(cases)("$name", ({ yaml, expect: expected, hint }) => {
    const t0 = performance.now();
    const r = check(yaml);
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(r.ok).toBe(false);
    expectDiagnostic(r, expected, hint || undefined);
  });

  it("accepts a BOM without shifting columns", () => {
    expect(check(`\uFEFF${OK}`).errors).toEqual([]);
    const r = check(`\uFEFF${OK.replace('"1.0"', '"2.0"')}`);
    expect(r.errors[0]?.col).toBe(10);
  });

  it("accepts CRLF line ends", () => {
    expect(check(OK.replace(/\n/g, "\r\n")).errors).toEqual([]);
  });

  it("a few aliases are fine", () => {
    const text = `${OK}    env: &shared\n      LOG_LEVEL: info\n  web:\n    type: nextjs\n    source: ./web\n    public: true\n    env: *shared\n`;
    const r = check(text);
    expect(r.errors).toEqual([]);
    expect(r.config?.services.web?.env).toEqual({ LOG_LEVEL: "info" });
  });

  it("a leading --- and a trailing empty document are fine", () => {
    expect(check(`---\n${OK}`).errors).toEqual([]);
    expect(check(`${OK}---\n`).errors).toEqual([]);
  });

  it("one mistake gives one YAML error per line, not a cascade", () => {
    const r = check(OK.replace("    source", "      source"));
    expect(r.errors.filter((d) => d.line === 5)).toHaveLength(1);
  });
});
