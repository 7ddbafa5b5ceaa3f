/**
 * Cheap checks on the raw text before the YAML parser sees it. The parser is recursive and
 * slow on pathological input (100k nested brackets take over half a second and then overflow
 * the stack), so hostile shapes are refused here in one linear pass.
 */

/**
 * Far above any real platform.yml (50 services are about 10 KiB, 1000 about 130 KiB), and small
 * enough that the worst file under it still parses in a few hundred milliseconds (yaml parses
 * structured text at roughly 1 ms per KiB).
 */
export const MAX_BYTES = 256 * 1024;
export const MAX_SIZE_TEXT = "256 KiB";
/** A platform.yml is at most 6 levels deep; 64 leaves room for odd formatting, not for attacks. */
export const MAX_DEPTH = 64;

export interface PrescanProblem {
  offset: number;
  code: "too-large" | "binary" | "too-deep";
  message: string;
  hint: string;
}

// C0 controls other than tab, LF and CR, and DEL: YAML forbids them and text editors never write them.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

export function prescanText(text: string): PrescanProblem | undefined {
  if (text.length > MAX_BYTES || Buffer.byteLength(text, "utf8") > MAX_BYTES) {
    return {
      offset: 0,
      code: "too-large",
      message: `file is ${formatSize(Buffer.byteLength(text, "utf8"))}; platform.yml may be at most ${MAX_SIZE_TEXT}`,
      hint: "is this the right file? a platform.yml with 50 services is about 10 KiB",
    };
  }
  const control = CONTROL.exec(text);
  if (control) {
    const code = control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
    return {
      offset: control.index,
      code: "binary",
      message: `control character U+${code}: this does not look like a text file`,
      hint: "platform.yml must be UTF-8 text; check that --file points at the right file",
    };
  }
  return findTooDeep(text);
}

export function formatSize(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}

function tooDeep(offset: number): PrescanProblem {
  return {
    offset,
    code: "too-deep",
    message: `nesting is deeper than ${MAX_DEPTH} levels`,
    hint: "platform.yml is at most a few levels deep (services > api > lifecycle > migrate > command); check this part of the file",
  };
}

/**
 * Estimates nesting depth: block nesting from increasing indentation (each leading "- " or
 * "? " counts as one more level) and flow nesting from "[" / "{" opened where a value starts.
 * Quoted text and comments are skipped. It may over-count odd block scalars, never under-count
 * an attack.
 */
function findTooDeep(text: string): PrescanProblem | undefined {
  const indents: number[] = [];
  let flow = 0;
  let quote: "'" | '"' | undefined;
  let lineStart = 0;
  while (lineStart <= text.length) {
    let lineEnd = text.indexOf("\n", lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    let i = lineStart;
    if (!quote && flow === 0) {
      // Block structure: indentation plus compact "- - -" entries.
      while (text[i] === " ") i++;
      let col = i - lineStart;
      const blank = i >= lineEnd || text[i] === "#" || text[i] === "\r";
      if (!blank) {
        while (indents.length > 0 && (indents[indents.length - 1] ?? 0) >= col) indents.pop();
        indents.push(col);
        while ((text[i] === "-" || text[i] === "?") && (text[i + 1] === " " || text[i + 1] === "\t")) {
          i += 2;
          while (text[i] === " ") i++;
          col = i - lineStart;
          indents.push(col);
          if (indents.length > MAX_DEPTH) return tooDeep(i);
        }
        if (indents.length > MAX_DEPTH) return tooDeep(i);
      }
    }
    let valueStart = true; // at a position where a "[" or "{" would open a flow collection
    for (; i < lineEnd; i++) {
      const c = text[i];
      if (quote) {
        if (c === quote) {
          if (quote === "'" && text[i + 1] === "'") i++;
          else quote = undefined;
        } else if (c === "\\" && quote === '"') i++;
        continue;
      }
      if (c === " " || c === "\t") continue;
      if (c === "#" && (i === lineStart || text[i - 1] === " " || text[i - 1] === "\t")) break;
      if ((c === "'" || c === '"') && valueStart) {
        quote = c;
        continue;
      }
      if ((c === "[" || c === "{") && (valueStart || flow > 0)) {
        flow++;
        if (flow + indents.length > MAX_DEPTH) return tooDeep(i);
        valueStart = true;
        continue;
      }
      if ((c === "]" || c === "}") && flow > 0) {
        flow--;
        valueStart = false;
        continue;
      }
      if (c === "," && flow > 0) {
        valueStart = true;
        continue;
      }
      if (
        (c === ":" || c === "-" || c === "?") &&
        (text[i + 1] === " " || text[i + 1] === "\t" || i + 1 >= lineEnd || (flow > 0 && text[i + 1] === ","))
      ) {
        valueStart = true;
        continue;
      }
      if (c === "&" || c === "!") {
        // Anchors and tags precede a value: skip the name, the value may still open a collection.
        while (i + 1 < lineEnd && text[i + 1] !== " " && text[i + 1] !== "\t") i++;
        continue;
      }
      valueStart = false;
    }
    lineStart = lineEnd + 1;
  }
  return undefined;
}
