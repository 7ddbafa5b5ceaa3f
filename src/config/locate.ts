import { isAlias, isMap, isPair, isScalar, isSeq, type Document, type LineCounter, type Node, type Pair, type YAMLMap } from "yaml";

export type PathSeg = string | number;

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** `["services", "api", "depends_on", 0]` -> `services.api.depends_on[0]`; odd keys get `["a b"]`. */
export function toPathString(path: readonly PathSeg[]): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else if (PLAIN_KEY.test(seg)) out += out === "" ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** The text of a map key as toJS would use it. */
export function keyText(key: unknown): string {
  if (isScalar(key)) return String(key.value);
  if (key && typeof key === "object" && "toString" in key) return String(key);
  return String(key);
}

interface Found {
  /** Key node of the last segment (the item itself for sequence items). */
  key?: Node;
  value?: Node;
  /** How many path segments were found. */
  depth: number;
}

/**
 * Maps config paths back to positions in the YAML source, so every diagnostic can say
 * file:line:col even though validation itself runs on plain JS values.
 */
export class Locator {
  constructor(
    readonly doc: Document.Parsed | undefined,
    readonly lineCounter: LineCounter,
    readonly text: string,
  ) {}

  /** Key -> pair per map, built on first use: lookups stay O(1) in files with many services. */
  private readonly index = new WeakMap<object, Map<string, Pair>>();

  private pairOf(map: YAMLMap, key: string): Pair | undefined {
    let idx = this.index.get(map);
    if (!idx) {
      idx = new Map();
      for (const p of map.items) if (isPair(p)) idx.set(keyText(p.key), p as Pair);
      this.index.set(map, idx);
    }
    return idx.get(key);
  }

  private deref(node: unknown): Node | undefined {
    if (!node || !this.doc) return undefined;
    if (isAlias(node)) return (node.resolve(this.doc) as Node | undefined) ?? undefined;
    return node as Node;
  }

  find(path: readonly PathSeg[]): Found {
    let current = this.deref(this.doc?.contents);
    const found: Found = { value: current, depth: 0 };
    for (const seg of path) {
      if (isMap(current)) {
        const pair = this.pairOf(current, String(seg));
        if (!pair) break;
        found.key = pair.key as Node;
        current = this.deref(pair.value);
      } else if (isSeq(current) && typeof seg === "number") {
        const item = current.items[seg];
        if (item === undefined) break;
        found.key = item as Node;
        current = this.deref(item);
      } else break;
      found.value = current;
      found.depth++;
    }
    return found;
  }

  /** Offset of the node at `path`: its value, or its key when asked or when the value is empty. */
  offsetOf(path: readonly PathSeg[], prefer: "key" | "value"): number {
    const f = this.find(path);
    if (f.depth < path.length) return f.key?.range?.[0] ?? this.rootOffset();
    const empty = !f.value || (isScalar(f.value) && f.value.value === null && !f.value.source);
    const node = prefer === "key" || empty ? (f.key ?? f.value) : f.value;
    return node?.range?.[0] ?? this.rootOffset();
  }

  private rootOffset(): number {
    return this.deref(this.doc?.contents)?.range?.[0] ?? 0;
  }

  /**
   * Offset of character `index` of the string value at `path`, as best the source allows:
   * exact for plain and simple quoted scalars, else the n-th "${" in the raw text, else the value.
   */
  offsetInString(path: readonly PathSeg[], value: string, index: number): number {
    const f = this.find(path);
    const node = f.depth === path.length ? f.value : undefined;
    const start = node?.range?.[0];
    const end = node?.range?.[1];
    if (start === undefined || end === undefined || !isScalar(node)) return this.offsetOf(path, "value");
    const raw = this.text.slice(start, end);
    const q = node.type === "QUOTE_DOUBLE" || node.type === "QUOTE_SINGLE" ? 1 : 0;
    if (raw.slice(q, q + value.length) === value) return start + q + index;
    const nth = countOccurrences(value.slice(0, index), "${");
    let at = -1;
    for (let k = 0; k <= nth; k++) {
      at = raw.indexOf("${", at + 1);
      if (at < 0) return start;
    }
    return start + at;
  }

  position(offset: number): { line: number; col: number } {
    const p = this.lineCounter.linePos(offset);
    return { line: Math.max(1, p.line), col: Math.max(1, p.col) };
  }
}

function countOccurrences(s: string, needle: string): number {
  let n = 0;
  for (let i = s.indexOf(needle); i >= 0; i = s.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** Offset -> 1-based line and column without a parsed document (used before parsing). */
export function positionInText(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, col: offset - lineStart + 1 };
}

/** The plain JS value at `path`, or undefined. */
export function getIn(value: unknown, path: readonly PathSeg[]): unknown {
  let v: unknown = value;
  for (const seg of path) {
    if (v === null || typeof v !== "object") return undefined;
    if (!Object.hasOwn(v, seg)) return undefined;
    v = (v as Record<string, unknown>)[seg as string];
  }
  return v;
}
