import type { YAMLError } from "yaml";
import { positionInText } from "./locate.js";
import { MAX_DEPTH } from "./prescan.js";
import type { Report } from "./sink.js";

/** YAML syntax errors as platform.yml diagnostics: the problem in our words, where, and what to do. */

/** yaml's messages are good but end in " at line 3, column 5:" plus its own code frame; ours replace both. */
export function fromYamlError(err: YAMLError, text: string): Report {
  const offset = err.pos[0];
  const raw = err.message.split("\n")[0]?.replace(/ at line \d+, column \d+:?\s*$/, "") ?? err.message;
  const at = { offset };
  if (/flow (map|sequence|collection)/i.test(raw) && /end with|not closed|missing/i.test(raw)) {
    // The parser notices at the end of the file; the useful place is the bracket left open.
    const open = unclosedBracket(text, offset);
    if (open) {
      const close = open.char === "[" ? "]" : "}";
      return {
        path: [],
        code: "yaml-unclosed-bracket",
        message: `"${open.char}" is not closed`,
        hint: `add the closing ${close} on the same line, e.g. depends_on: [api, web]`,
        at: { offset: open.offset },
      };
    }
    return {
      path: [],
      code: "yaml-syntax",
      message: `YAML syntax error: ${lowerFirst(raw)}`,
      hint: "check the brackets: every [ needs a ] and every { a }",
      at,
    };
  }
  if (/nested mappings are not allowed in compact mappings/i.test(raw)) {
    return {
      path: [],
      code: "yaml-indent",
      message: "wrong indentation: the next line is indented further than this field",
      hint: "fields of the same map must start in the same column; to nest fields, leave this field's value empty (`name:`) and indent below it",
      at,
    };
  }
  switch (err.code) {
    case "TAB_AS_INDENT":
      return {
        path: [],
        code: "yaml-tab",
        message: "a tab is used for indentation",
        hint: "YAML indents with spaces only: replace the tab with spaces (2 per level)",
        at,
      };
    case "BAD_INDENT":
    case "MISSING_CHAR":
      if (/quote/i.test(raw)) {
        return {
          path: [],
          code: "yaml-unclosed-quote",
          message: "a quoted string is not closed",
          hint: `add the closing quote; the string starts at ${openingQuote(text, offset)}`,
          at,
        };
      }
      return {
        path: [],
        code: "yaml-indent",
        message: `wrong indentation: ${lowerFirst(raw)}`,
        hint: "fields of the same map must start in the same column; indent nested fields with spaces, 2 per level",
        at,
      };
    case "RESOURCE_EXHAUSTION":
      return { path: [], code: "too-deep", message: `nesting is deeper than ${MAX_DEPTH} levels`, hint: "check this part of the file", at };
    case "DUPLICATE_KEY":
      return {
        path: [],
        code: "duplicate-key",
        message: lowerFirst(raw),
        hint: "each field may appear once in a map: remove or rename one",
        at,
      };
    case "TAG_RESOLVE_FAILED":
    case "BAD_DIRECTIVE":
      return {
        path: [],
        code: "yaml-tag",
        message: lowerFirst(raw),
        hint: "platform.yml uses plain YAML: remove the ! tag or % directive",
        at,
      };
    default:
      return { path: [], code: "yaml-syntax", message: `YAML syntax error: ${lowerFirst(raw)}`, hint: syntaxHint(raw), at };
  }
}

/** The last "[" or "{" before `end` that no bracket closes (quoted text skipped). */
function unclosedBracket(text: string, end: number): { offset: number; char: string } | undefined {
  const stack: Array<{ offset: number; char: string }> = [];
  let quote: string | undefined;
  for (let i = 0; i < end && i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"') i++;
    } else if ((c === '"' || c === "'") && /[\s[{,:]/.test(text[i - 1] ?? " ")) quote = c;
    else if (c === "#" && /\s/.test(text[i - 1] ?? " ")) i = Math.max(i, text.indexOf("\n", i) < 0 ? text.length : text.indexOf("\n", i));
    else if (c === "[" || c === "{") stack.push({ offset: i, char: c });
    else if (c === "]" || c === "}") stack.pop();
  }
  return stack[stack.length - 1];
}

function syntaxHint(message: string): string {
  if (/implicit (map )?keys?/i.test(message) || /map value/i.test(message)) {
    return "each field is `name: value` with a space after the ':'; check the indentation of this line and the one above";
  }
  if (/flow/i.test(message)) return "check the brackets: every [ needs a ] and every { a }";
  return "check the indentation and quoting of this line and the one above";
}

function openingQuote(text: string, offset: number): string {
  // The parser reports the end of the file; the quote that opened the string is the last one
  // preceded by ": ", "- " or a line start before that point.
  const re = /(?:^|[:\-,[{]\s+|^\s+)(["'])/gm;
  let last = -1;
  for (let m = re.exec(text); m && m.index < offset; m = re.exec(text)) last = m.index + m[0].length - 1;
  if (last < 0) return "its opening quote";
  const p = positionInText(text, last);
  return `line ${p.line}, column ${p.col}`;
}

export function lowerFirst(s: string): string {
  return s.length > 0 ? s[0]!.toLowerCase() + s.slice(1) : s;
}
