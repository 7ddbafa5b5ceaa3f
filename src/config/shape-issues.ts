import type { core } from "zod";
import { didYouMeanSuffix } from "./did-you-mean.js";
import { getIn, type PathSeg } from "./locate.js";
import type { DiagnosticSink } from "./sink.js";
import { EXPECTED, emptyHint, FIELDS, FOREIGN_FIELDS, MISSING_HINTS, nullHint, toPattern } from "./shape-hints.js";
import { PRESETS, suggestDuration, suggestStorage } from "./units.js";

/**
 * Turns zod issues into diagnostics people can act on: zod knows the shape, this file knows
 * what a user probably meant at each place in platform.yml.
 */

export function describeValue(v: unknown): string {
  if (v === null) return "empty";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a map";
  if (typeof v === "string") return `the text "${v.length > 40 ? `${v.slice(0, 37)}...` : v}"`;
  if (typeof v === "boolean") return String(v);
  return `the number ${String(v)}`;
}

export function reportShapeIssues(issues: readonly core.$ZodIssue[], raw: unknown, sink: DiagnosticSink, base: PathSeg[] = []): void {
  for (const issue of issues) {
    const path = [...base, ...(issue.path as PathSeg[])];
    const input = getIn(raw, path);
    if (input === undefined && (issue.code === "invalid_type" || issue.code === "invalid_value" || issue.code === "invalid_union")) {
      reportMissing(path, sink);
      continue;
    }
    switch (issue.code) {
      case "unrecognized_keys":
        for (const key of issue.keys) reportUnknownField([...path, key], sink);
        break;
      case "invalid_type":
        reportWrongType(path, EXPECTED[issue.expected] ?? issue.expected, input, sink);
        break;
      case "invalid_value":
        reportBadValue(path, issue.values.map(String), input, sink);
        break;
      case "invalid_union":
        reportUnion(path, issue.errors, input, raw, sink);
        break;
      case "too_small":
      case "too_big":
        if (typeof input === "number") {
          const bound = Number(issue.code === "too_small" ? issue.minimum : issue.maximum);
          sink.error({
            path,
            code: "out-of-range",
            message: `is ${input}; it must be ${issue.code === "too_small" ? "at least" : "at most"} ${bound}`,
          });
          break;
        }
        if (issue.code === "too_big") {
          sink.error({ path, code: "invalid-value", message: issue.message });
          break;
        }
        sink.error({
          path,
          code: "empty-value",
          message: Array.isArray(input) ? "the list is empty" : "must not be empty",
          hint: emptyHint(toPattern(path)),
        });
        break;
      case "invalid_format":
        reportFormat(path, input, sink);
        break;
      default:
        sink.error({ path, code: "invalid-value", message: issue.message });
    }
  }
}

function reportUnknownField(path: PathSeg[], sink: DiagnosticSink): void {
  const key = String(path[path.length - 1]);
  const allowed = FIELDS[toPattern(path.slice(0, -1))] ?? [];
  const suffix = didYouMeanSuffix(key, allowed);
  const foreign = FOREIGN_FIELDS[key.toLowerCase()];
  const hint = suffix === "" && foreign ? foreign : `allowed here: ${allowed.join(", ")}`;
  sink.error({ path, code: "unknown-field", message: `unknown field "${key}"${suffix}`, hint, at: "key" });
}

function reportMissing(path: PathSeg[], sink: DiagnosticSink): void {
  const field = String(path[path.length - 1]);
  const parent = path.slice(0, -1);
  sink.error({
    path,
    code: "missing-field",
    message: `missing required field "${field}"`,
    hint: MISSING_HINTS[toPattern(path)],
    at: { path: parent, prefer: "key" },
  });
}

function reportWrongType(path: PathSeg[], expected: string, input: unknown, sink: DiagnosticSink): void {
  const pattern = toPattern(path);
  if (input === null) {
    sink.error({ path, code: "empty-value", message: `has no value; expected ${expected}`, hint: nullHint(pattern) });
    return;
  }
  let hint: string | undefined;
  const glued = typeof input === "string" ? /^([A-Za-z_][\w-]*):(\S.*)$/.exec(input) : null;
  if (glued) hint = `put a space after the ':': ${glued[1]}: ${glued[2]}`;
  else if (pattern === "version") hint = 'quote it: version: "1.0"';
  else if (pattern === "services") hint = "services is a map keyed by service name:\n  services:\n    api:\n      type: fastapi";
  else if (pattern === "services.*")
    hint = `a service is a map of fields, e.g.\n  ${String(path[1])}:\n    type: ${typeof input === "string" ? input : "fastapi"}`;
  else if (pattern.endsWith(".public") && typeof input === "string")
    hint = `write public: ${/^(true|yes|on|1)$/i.test(input) ? "true" : "false"} (no quotes)`;
  else if (pattern.endsWith(".depends_on") && typeof input === "string") hint = `write depends_on: [${input}]`;
  else if (pattern.endsWith(".domains") && typeof input === "string") hint = `write domains: [${input}]`;
  else if (pattern.endsWith(".command") && typeof input === "string") hint = `write command: [${input.trim().split(/\s+/).join(", ")}]`;
  else if (pattern.endsWith(".env") && Array.isArray(input)) hint = "env is a map of NAME: value lines, not a list of NAME=value";
  else if (pattern.endsWith(".source") || pattern.endsWith(".dockerfile")) hint = "write a path, e.g. ./api";
  else if (pattern.endsWith(".timeout") && typeof input === "number") hint = `add a unit: timeout: ${input}s (or m, h)`;
  sink.error({ path, code: "wrong-type", message: `must be ${expected}, not ${describeWritten(path, input, sink)}`, hint });
}

function reportBadValue(path: PathSeg[], values: string[], input: unknown, sink: DiagnosticSink): void {
  const pattern = toPattern(path);
  if (pattern === "version") {
    if (typeof input === "string")
      sink.error({
        path,
        code: "unsupported-version",
        message: `unsupported version "${input}"; the only version is "1.0"`,
        hint: 'write version: "1.0"',
      });
    else
      sink.error({
        path,
        code: "version-not-text",
        message: `must be the text "1.0", not ${describeWritten(path, input, sink)}`,
        hint: 'quote it: version: "1.0"',
      });
    return;
  }
  if (typeof input !== "string") {
    sink.error({ path, code: "invalid-value", message: `must be one of ${values.join(", ")}, not ${describeWritten(path, input, sink)}` });
    return;
  }
  const what = pattern.endsWith(".type")
    ? "service type"
    : pattern.endsWith("resources") || pattern.endsWith(".preset")
      ? "preset"
      : "value";
  const shown = `"${input}"`;
  const suffix = didYouMeanSuffix(input, values);
  const hint = what === "preset" ? `presets: ${presetSummary()}` : `one of: ${values.join(", ")}`;
  sink.error({
    path,
    code: what === "service type" ? "unknown-type" : what === "preset" ? "unknown-preset" : "invalid-value",
    message: `unknown ${what} ${shown}${suffix}`,
    hint,
  });
}

/** How a non-text value was written: `1.0` parses to the number 1, but the user should see 1.0. */
function describeWritten(path: PathSeg[], input: unknown, sink: DiagnosticSink): string {
  const node = sink.locator.find(path).value as { source?: unknown } | undefined;
  const written = typeof node?.source === "string" && node.source !== "" ? node.source : undefined;
  return typeof input === "number" && written ? `the number ${written}` : describeValue(input);
}

function presetSummary(): string {
  return Object.entries(PRESETS)
    .map(
      ([n, p]) =>
        `${n} (${p.cpus} CPU, ${p.memoryBytes / 1024 ** 2 >= 1024 ? `${p.memoryBytes / 1024 ** 3}Gi` : `${p.memoryBytes / 1024 ** 2}Mi`})`,
    )
    .join(", ");
}

function reportUnion(path: PathSeg[], branches: core.$ZodIssue[][], input: unknown, raw: unknown, sink: DiagnosticSink): void {
  const pattern = toPattern(path);
  if (pattern.endsWith(".resources")) {
    if (typeof input === "string") reportShapeIssues(branches[0] ?? [], raw, sink, path);
    else if (input !== null && typeof input === "object" && !Array.isArray(input)) reportShapeIssues(branches[1] ?? [], raw, sink, path);
    else
      sink.error({
        path,
        code: "wrong-type",
        message: `must be a preset name or a map, not ${describeValue(input)}`,
        hint: `e.g. resources: small, or resources: {preset: small, storage: 10Gi} on postgres; presets: ${presetSummary()}`,
      });
    return;
  }
  if (pattern.endsWith(".env.*")) {
    if (input === null)
      sink.error({ path, code: "env-null", message: "has no value", hint: 'write "" for an empty value, or remove the line' });
    else
      sink.error({
        path,
        code: "env-not-text",
        message: `must be text, not ${describeValue(input)}`,
        hint: 'environment values are text: quote it, e.g. NAME: "[a, b]"',
      });
    return;
  }
  if (pattern.endsWith(".start")) {
    // A list of text whose items are wrong is reported at the items; anything else here.
    if (Array.isArray(input) && input.length > 0) reportShapeIssues(branches[1] ?? [], raw, sink, path);
    else
      sink.error({
        path,
        code: "wrong-type",
        message: `must be text or a list of text, not ${describeValue(input)}`,
        hint: 'e.g. start: uvicorn app.main:app --host 0.0.0.0 --port "$PORT", or start: [node, server.js]',
      });
    return;
  }
  sink.error({ path, code: "invalid-value", message: `unexpected ${describeValue(input)}` });
}

function reportFormat(path: PathSeg[], input: unknown, sink: DiagnosticSink): void {
  const pattern = toPattern(path);
  const text = String(input);
  if (pattern.endsWith(".storage")) {
    const guess = suggestStorage(text);
    sink.error({
      path,
      code: "invalid-storage",
      message: `invalid storage size "${text}"${guess ? ` (did you mean "${guess}"?)` : ""}`,
      hint: "write <n>Mi, <n>Gi or <n>Ti (binary units), from 64Mi to 16Ti, e.g. 10Gi",
    });
  } else if (pattern.endsWith(".timeout")) {
    const guess = suggestDuration(text);
    sink.error({
      path,
      code: "invalid-duration",
      message: `invalid duration "${text}"${guess ? ` (did you mean "${guess}"?)` : ""}`,
      hint: "write <n>s, <n>m or <n>h, e.g. 90s, 5m, 1h",
    });
  } else if (pattern.endsWith(".health.http")) {
    const m = /^[a-z]+:\/\/[^/]*(\/.*)?$/i.exec(text);
    const guess = m ? (m[1] ?? "/") : `/${text}`;
    sink.error({
      path,
      code: "invalid-health-path",
      message: `health path must start with "/" (did you mean "${guess}"?)`,
      hint: "give only the path of the endpoint on this service, e.g. /health",
    });
  } else {
    sink.error({ path, code: "invalid-value", message: `invalid value ${describeValue(input)}` });
  }
}
