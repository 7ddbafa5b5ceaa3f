import { describe, expect, it } from "vitest";
import { renderValidateResult } from "../../../src/cli/validate.js";
import { formatDiagnostic, renderCodeFrame, type Diagnostic } from "../../../src/config/index.js";
import type { LoadResult } from "../../../src/config/load-config.js";

const d: Diagnostic = {
  file: "platform.yml",
  line: 14,
  col: 7,
  path: "services.api.depends_on[0]",
  code: "unknown-service",
  message: 'unknown service "dtabase" (did you mean "database"?)',
  hint: "services in this file: database, api, web",
  severity: "error",
};

describe("formatDiagnostic", () => {
  it("puts the position and the path first", () => {
    expect(formatDiagnostic(d)).toBe('platform.yml:14:7 services.api.depends_on[0]: unknown service "dtabase" (did you mean "database"?)');
  });

  it("marks warnings right after the position", () => {
    expect(formatDiagnostic({ ...d, severity: "warning", path: "services.worker", message: "m" })).toBe(
      "platform.yml:14:7 warning: services.worker: m",
    );
  });

  it("leaves out an empty path", () => {
    expect(formatDiagnostic({ ...d, path: "", message: "the file is empty", line: 1, col: 1 })).toBe("platform.yml:1:1 the file is empty");
  });
});

describe("renderCodeFrame", () => {
  const source = "services:\n  api:\n    depends_on:\n      - dtabase\n";

  it("shows the line before, the line, and a caret under the column", () => {
    expect(renderCodeFrame(source, 4, 9)).toBe(["  3 |     depends_on:", "> 4 |       - dtabase", "    |         ^"].join("\n"));
  });

  it("keeps tabs so the caret lines up", () => {
    expect(renderCodeFrame("a:\n\tb: 1\n", 2, 2).split("\n")[2]).toBe("    | \t^");
  });

  it("cuts long lines around the column", () => {
    const frame = renderCodeFrame(`x: ${"a".repeat(300)}b`, 1, 304);
    const [line, caret] = frame.split("\n");
    expect(line!.length).toBeLessThan(140);
    expect(line![caret!.indexOf("^")]).toBe("b");
  });

  it("is empty for a line that does not exist", () => {
    expect(renderCodeFrame(source, 99, 1)).toBe("");
  });
});

describe("renderValidateResult", () => {
  const source = 'version: "1.0"\nname: shop\nservices:\n  api:\n    type: fastapi\n    source: ./api\n    depends_on: [dtabase]\n';
  const err: Diagnostic = { ...d, line: 7, col: 18 };
  const warn: Diagnostic = {
    file: "platform.yml",
    line: 4,
    col: 3,
    path: "services.api",
    code: "unused-service",
    message: "api is not public",
    severity: "warning",
  };
  const invalid: LoadResult = { ok: false, errors: [err], warnings: [warn], source };

  it("plain: every problem in file order, hints, a summary; exit 1", () => {
    const out = renderValidateResult(invalid, "platform.yml", "plain");
    expect(out.exitCode).toBe(1);
    expect(out.stderr).toBe("");
    expect(out.stdout).toBe(
      [
        "platform.yml:4:3 warning: services.api: api is not public",
        'platform.yml:7:18 services.api.depends_on[0]: unknown service "dtabase" (did you mean "database"?)',
        "  hint: services in this file: database, api, web",
        "✖ Configuration is invalid: 1 error, 1 warning",
        "",
      ].join("\n"),
    );
  });

  it("tty: adds the code frame; colors only when asked", () => {
    const out = renderValidateResult(invalid, "platform.yml", "tty");
    expect(out.stdout).toContain("> 7 |     depends_on: [dtabase]\n      |                  ^");
    expect(out.stdout).not.toContain("\u001b[");
    expect(renderValidateResult(invalid, "platform.yml", "tty", true).stdout).toContain("\u001b[31m^\u001b[0m");
  });

  it("valid: the check mark and the services in file order; exit 0", () => {
    const ok: LoadResult = {
      ok: true,
      errors: [],
      warnings: [],
      config: { version: "1.0", name: "x", services: { b: {} as never, a: {} as never } },
    };
    expect(renderValidateResult(ok, "platform.yml", "plain")).toEqual({
      stdout: "✓ Configuration is valid\n2 services: b, a\n",
      stderr: "",
      exitCode: 0,
    });
  });

  it("unreadable: the reason on stderr; exit 2", () => {
    const r: LoadResult = {
      ok: false,
      warnings: [],
      errors: [
        {
          file: "x.yml",
          line: 1,
          col: 1,
          path: "",
          code: "unreadable",
          message: "cannot read x.yml: no such file",
          hint: "pass --file",
          severity: "error",
        },
      ],
    };
    expect(renderValidateResult(r, "x.yml", "plain")).toEqual({
      stdout: "",
      stderr: "✖ cannot read x.yml: no such file\n  hint: pass --file\n",
      exitCode: 2,
    });
  });

  it("json: a stable object, hint null when absent", () => {
    const out = renderValidateResult(invalid, "platform.yml", "json");
    expect(JSON.parse(out.stdout)).toEqual({
      valid: false,
      file: "platform.yml",
      services: [],
      errors: [
        {
          file: "platform.yml",
          line: 7,
          col: 18,
          path: "services.api.depends_on[0]",
          code: "unknown-service",
          message: err.message,
          hint: err.hint,
        },
      ],
      warnings: [
        { file: "platform.yml", line: 4, col: 3, path: "services.api", code: "unused-service", message: "api is not public", hint: null },
      ],
    });
  });
});
