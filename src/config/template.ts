import type { TemplatePart } from "./types.js";

/** A malformed piece of a template, with its index in the value so it can be pointed at. */
export interface TemplateProblem {
  index: number;
  code: "unclosed-reference" | "empty-reference" | "nested-reference" | "malformed-reference";
  message: string;
  hint: string;
}

/** A well-formed reference with its index in the value. */
export interface TemplateRef {
  index: number;
  service: string;
  property: string;
  /** The reference as written, e.g. "${api.url}". */
  text: string;
}

export interface ScannedTemplate {
  parts: TemplatePart[];
  refs: TemplateRef[];
  problems: TemplateProblem[];
}

// Service names are checked against the file later; here we only need "looks like a name",
// so a typo like ${Api.url} is reported as an unknown service, not as malformed.
const REF_BODY = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/;
const FORM_HINT = "a reference is ${<service>.<property>}, e.g. ${api.url}; write $${ for a literal ${";

function pushText(parts: TemplatePart[], text: string): void {
  if (text === "") return;
  const last = parts[parts.length - 1];
  if (last?.kind === "text") last.text += text;
  else parts.push({ kind: "text", text });
}

/**
 * Scans an env value for `${service.property}` references. `$${` is the escape for a literal
 * `${`. Malformed pieces become problems and are kept as literal text in `parts`.
 */
export function scanTemplate(value: string): ScannedTemplate {
  const parts: TemplatePart[] = [];
  const refs: TemplateRef[] = [];
  const problems: TemplateProblem[] = [];
  let i = 0;
  while (i < value.length) {
    const open = value.indexOf("${", i);
    if (open < 0) {
      pushText(parts, value.slice(i));
      break;
    }
    if (open > i && value[open - 1] === "$") {
      // `$${` -> literal `${`: drop one `$`, keep scanning after the brace.
      pushText(parts, `${value.slice(i, open - 1)}\${`);
      i = open + 2;
      continue;
    }
    pushText(parts, value.slice(i, open));
    const close = value.indexOf("}", open + 2);
    const nextOpen = value.indexOf("${", open + 2);
    if (close < 0) {
      problems.push({
        index: open,
        code: "unclosed-reference",
        message: `unclosed reference "${clip(value.slice(open))}": missing "}"`,
        hint: FORM_HINT,
      });
      pushText(parts, value.slice(open));
      break;
    }
    if (nextOpen >= 0 && nextOpen < close) {
      // Find the brace that closes the outer one, so the whole nested piece is reported once.
      const end = value.indexOf("}", close + 1);
      const stop = end < 0 ? value.length : end + 1;
      problems.push({
        index: open,
        code: "nested-reference",
        message: `references cannot be nested: "${clip(value.slice(open, stop))}"`,
        hint: "use one reference per ${...}; put two references side by side if you need both values",
      });
      pushText(parts, value.slice(open, stop));
      i = stop;
      continue;
    }
    const body = value.slice(open + 2, close);
    const text = value.slice(open, close + 1);
    const m = REF_BODY.exec(body.trim());
    if (body.trim() === "") {
      problems.push({ index: open, code: "empty-reference", message: `empty reference "${text}"`, hint: FORM_HINT });
      pushText(parts, text);
    } else if (!m?.[1] || !m[2]) {
      problems.push({ index: open, code: "malformed-reference", message: `malformed reference "${clip(text)}"`, hint: FORM_HINT });
      pushText(parts, text);
    } else {
      refs.push({ index: open, service: m[1], property: m[2], text });
      parts.push({ kind: "ref", service: m[1], property: m[2] });
    }
    i = close + 1;
  }
  return { parts, refs, problems };
}

function clip(s: string): string {
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

/**
 * Splits an env value into literal text and references, for the plan stage. Meant for values
 * that passed validation; anything malformed is kept as literal text rather than thrown.
 */
export function parseTemplate(value: string): TemplatePart[] {
  return scanTemplate(value).parts;
}
