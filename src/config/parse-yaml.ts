import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments, type Document, type Node } from "yaml";
import { keyText, Locator, positionInText, type PathSeg } from "./locate.js";
import { prescanText } from "./prescan.js";
import type { Report } from "./sink.js";
import { fromYamlError } from "./yaml-errors.js";

/** Aliases are fine for sharing a few values; thousands of expansions are an alias bomb. */
export const MAX_ALIAS_COUNT = 100;

export interface ParsedYaml {
  locator: Locator;
  /** Set when the text is one YAML mapping we can validate. */
  value?: Record<string, unknown>;
  /** Problems that stop validation before the schema: syntax, hostile input, wrong top level. */
  problems: Report[];
}

const MINIMAL =
  'a minimal platform.yml:\n  version: "1.0"\n  name: my-app\n  services:\n    api:\n      type: fastapi\n      source: ./api\n      public: true';

/**
 * Text -> one YAML mapping with positions, or problems saying why not. Never throws: hostile
 * input (huge, binary, deeply nested, alias bombs) gets a clear problem in milliseconds.
 */
export function parseYamlText(input: string): ParsedYaml {
  // A BOM is invisible and harmless: drop it so it does not shift column numbers on line 1.
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const lineCounter = new LineCounter();
  const early = prescanText(text);
  if (early) {
    const locator = new Locator(undefined, lineCounter, text);
    // Without a parse the line counter is empty: feed it the lines up to the problem.
    feedLines(lineCounter, text, positionInText(text, early.offset).line);
    return { locator, problems: [{ path: [], code: early.code, message: early.message, hint: early.hint, at: { offset: early.offset } }] };
  }
  const docs = parseAllDocuments(text, { lineCounter, prettyErrors: true, uniqueKeys: false, strict: true, version: "1.2" });
  const list: Document.Parsed[] = Array.isArray(docs) ? docs : [];
  const first = list[0];
  const locator = new Locator(first, lineCounter, text);
  const problems: Report[] = [];
  // One mistake often makes the parser report several errors on its line, and once the
  // structure is lost, later syntax errors are mostly echoes of the first: keep the first
  // structural one. Tabs and tags are independent of the structure, so each is reported.
  const linesSeen = new Set<number>();
  let structural = false;
  for (const doc of list) {
    for (const err of [...doc.errors, ...doc.warnings]) {
      const line = lineCounter.linePos(err.pos[0]).line;
      if (linesSeen.has(line)) continue;
      const problem = fromYamlError(err, text);
      const isStructural = !["yaml-tab", "yaml-tag", "duplicate-key"].includes(problem.code);
      if (isStructural && structural) continue;
      structural ||= isStructural;
      linesSeen.add(line);
      problems.push(problem);
    }
  }
  const extra = list.slice(1).find(hasContent);
  if (extra) {
    problems.push({
      path: [],
      code: "multiple-documents",
      message: "several YAML documents in one file; platform.yml holds exactly one",
      hint: "remove the '---' line and everything after it, or merge the documents into one",
      at: { offset: extra.range[0] },
    });
  }
  if (problems.length > 0) return { locator, problems };
  if (!first || !hasContent(first) || first.contents === null) {
    return { locator, problems: [{ path: [], code: "empty", message: "the file is empty", hint: MINIMAL, at: { offset: 0 } }] };
  }
  if (!isMap(first.contents)) {
    const kind = isSeq(first.contents) ? "a list" : "a single value";
    return {
      locator,
      problems: [
        {
          path: [],
          code: "not-a-map",
          message: `the file is ${kind}; it must be a map of fields (version, name, services)`,
          hint: MINIMAL,
          at: { offset: first.contents.range?.[0] ?? 0 },
        },
      ],
    };
  }
  problems.push(...findKeyProblems(first, text));
  if (problems.length > 0) return { locator, problems };
  try {
    const value = first.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as Record<string, unknown>;
    return { locator, value, problems };
  } catch (err) {
    const message = String((err as Error)?.message ?? err);
    const alias = firstAliasOffset(first);
    const unresolved = /^Unresolved alias.*?:\s*(.+)$/.exec(message);
    let problem: Report;
    if (unresolved) {
      const name = unresolved[1]!.trim();
      const at = { offset: firstAliasOffset(first, name) };
      problem = {
        path: [],
        code: "unknown-alias",
        message: `unknown alias *${name}: no &${name} anchor before it`,
        hint: `define &${name} on a value above this line, or write the value out`,
        at,
      };
    } else if (/excessive alias count/i.test(message)) {
      problem = {
        path: [],
        code: "alias-limit",
        message: `aliases expand to too much data (limit ${MAX_ALIAS_COUNT} expansions); this looks like an alias bomb`,
        hint: "write the values out, or use far fewer * aliases",
        at: { offset: alias },
      };
    } else {
      problem = {
        path: [],
        code: "yaml-syntax",
        message: `cannot read the YAML: ${message}`,
        hint: "check the YAML syntax around this line",
        at: { offset: alias },
      };
    }
    return { locator, problems: [problem] };
  }
}

/** A document with only `---` (or nothing) has a null scalar as contents: that is no content. */
function hasContent(doc: Document.Parsed): boolean {
  const c = doc.contents;
  return c !== null && !(isScalar(c) && c.value === null && !c.source && !c.anchor && !c.tag);
}

function feedLines(lc: LineCounter, text: string, upToLine: number): void {
  lc.addNewLine(0);
  let n = 1;
  for (let i = text.indexOf("\n"); i >= 0 && n < upToLine; i = text.indexOf("\n", i + 1), n++) lc.addNewLine(i + 1);
}

/** Duplicate keys (with the line of the first) and keys that are not plain scalars. */
function findKeyProblems(doc: Document.Parsed, text: string): Report[] {
  const out: Report[] = [];
  const stack: Array<{ node: unknown; path: PathSeg[] }> = [{ node: doc.contents, path: [] }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (isMap(node)) {
      const seen = new Map<string, Node>();
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = pair.key as Node | null;
        const offset = key?.range?.[0] ?? node.range?.[0] ?? 0;
        if (key !== null && !isScalar(key)) {
          out.push({
            path,
            code: "complex-key",
            message: "a key must be a plain name, not a list or map",
            hint: "write `name: value`",
            at: { offset },
          });
          continue;
        }
        const name = keyText(key);
        const first = seen.get(name);
        if (first) {
          const line = first.range ? positionInText(text, first.range[0]).line : undefined;
          out.push({
            path: [...path, name],
            code: "duplicate-key",
            message: `"${name}" appears twice in the same map${line ? ` (first on line ${line})` : ""}`,
            hint: "each key may appear once: merge the two entries or rename one",
            at: { offset },
          });
        } else if (key) seen.set(name, key);
        stack.push({ node: pair.value, path: [...path, name] });
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => {
        stack.push({ node: item, path: [...path, i] });
      });
    }
  }
  return out;
}

/** The first alias (with that name, if given) in document order: where the expansion starts. */
function firstAliasOffset(doc: Document.Parsed, name?: string): number {
  let first = Infinity;
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isAlias(node) && (name === undefined || node.source === name)) first = Math.min(first, node.range?.[0] ?? Infinity);
    else if (isMap(node)) for (const p of node.items) stack.push(p.value);
    else if (isSeq(node)) stack.push(...node.items);
  }
  return Number.isFinite(first) ? first : 0;
}
