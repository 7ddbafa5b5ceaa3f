/**
 * Readers for OTLP values that differ between the two encodings, so the normalizers work on
 * either: protobufjs messages (bytes as Uint8Array, 64-bit ints as Long) and OTLP JSON (ids as
 * hex strings, 64-bit ints as decimal strings or numbers). Field names are camelCase in both.
 * Presence is tested with Object.hasOwn: protobufjs puts defaults on the prototype and only
 * decoded fields on the message itself, which is also what JSON.parse gives.
 */

/** A protobufjs Long (from the `long` package), without importing its type. */
interface LongLike {
  readonly low: number;
  readonly high: number;
  readonly unsigned: boolean;
}

const isLong = (v: unknown): v is LongLike =>
  typeof v === "object" && v !== null && typeof (v as LongLike).low === "number" && typeof (v as LongLike).high === "number";

/** Any OTLP 64-bit integer to a BigInt, or undefined if it is not one. */
export function toBigInt(v: unknown): bigint | undefined {
  if (typeof v === "bigint") return v;
  if (typeof v === "number") return Number.isFinite(v) ? BigInt(Math.trunc(v)) : undefined;
  if (typeof v === "string") return /^-?\d+$/.test(v) ? BigInt(v) : undefined;
  if (isLong(v)) {
    const big = (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0);
    return v.unsigned ? big : BigInt.asIntN(64, big);
  }
  return undefined;
}

/** A count-like 64-bit integer as a number (counts never get near 2^53). */
export function toCount(v: unknown): number {
  const big = toBigInt(v);
  return big === undefined ? 0 : Number(big);
}

/** An OTLP double: protobuf gives numbers, JSON may give "NaN"/"Infinity" strings too. */
export function toDouble(v: unknown): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "string" && v.trim() !== "") {
    const n = Number(v);
    return Number.isNaN(n) && v !== "NaN" ? undefined : n;
  }
  return undefined;
}

const HEX = /^[0-9a-fA-F]*$/;

/**
 * A trace or span id as lowercase hex; null when absent, empty or all zero (OTLP's "no
 * parent"); undefined when malformed. JSON ids are hex per the spec; base64 is accepted too,
 * because some older encoders sent protobuf's default JSON mapping.
 */
export function toHexId(v: unknown, bytes: number): string | null | undefined {
  let hex: string | undefined;
  // protobufjs leaves an absent bytes field at its prototype default, an empty array.
  if (v === undefined || v === null || (v as { length?: unknown }).length === 0) return null;
  if (v instanceof Uint8Array) hex = v.length === bytes ? Buffer.from(v.buffer, v.byteOffset, v.length).toString("hex") : undefined;
  else if (typeof v === "string" && v.length === bytes * 2 && HEX.test(v)) hex = v.toLowerCase();
  else if (typeof v === "string") {
    const b = Buffer.from(v, "base64");
    hex = b.length === bytes ? b.toString("hex") : undefined;
  }
  if (hex === undefined) return undefined;
  return /^0+$/.test(hex) ? null : hex;
}

/**
 * An OTLP enum: an int in both encodings per the spec, but protobuf's canonical JSON mapping
 * (which some encoders use) writes the value's name, e.g. "SPAN_KIND_SERVER".
 */
export function toEnum(v: unknown, names: readonly string[]): number {
  if (typeof v === "number") return v;
  if (typeof v === "string") {
    const i = names.indexOf(v);
    return i >= 0 ? i : /^\d+$/.test(v) ? Number(v) : 0;
  }
  return 0;
}

type Obj = Record<string, unknown>;
const has = (o: Obj, k: string) => Object.hasOwn(o, k);

/** An AnyValue to a plain JSON-able value (int64 beyond 2^53 stays a string, bytes become hex). */
export function toPlain(any: unknown): unknown {
  if (typeof any !== "object" || any === null) return null;
  const a = any as Obj;
  if (has(a, "stringValue")) return String(a.stringValue);
  if (has(a, "boolValue")) return Boolean(a.boolValue);
  if (has(a, "intValue")) {
    const big = toBigInt(a.intValue);
    if (big === undefined) return null;
    return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big.toString();
  }
  if (has(a, "doubleValue")) return toDouble(a.doubleValue) ?? null;
  if (has(a, "arrayValue")) {
    const values = (a.arrayValue as Obj | null)?.values;
    return Array.isArray(values) ? values.map(toPlain) : [];
  }
  if (has(a, "kvlistValue")) return toRecord((a.kvlistValue as Obj | null)?.values);
  if (has(a, "bytesValue")) {
    const b = a.bytesValue;
    return b instanceof Uint8Array
      ? Buffer.from(b).toString("hex")
      : typeof b === "string"
        ? Buffer.from(b, "base64").toString("hex")
        : null;
  }
  return null;
}

/** A repeated KeyValue to a record; later duplicates win, as in the SDKs. */
export function toRecord(kvs: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!Array.isArray(kvs)) return out;
  for (const kv of kvs as Obj[]) {
    if (kv && typeof kv.key === "string") out[kv.key] = toPlain(kv.value);
  }
  return out;
}

/** The first attribute among `keys` that is a non-empty string. */
export function pickString(attrs: Record<string, unknown>, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = attrs[k];
    if (typeof v === "string" && v !== "") return v;
  }
  return undefined;
}

/** The first attribute among `keys` that is an integer (or an integer string, as some SDKs send). */
export function pickInt(attrs: Record<string, unknown>, ...keys: string[]): number | undefined {
  for (const k of keys) {
    const v = attrs[k];
    if (typeof v === "number" && Number.isInteger(v)) return v;
    if (typeof v === "string" && /^\d+$/.test(v)) return Number(v);
  }
  return undefined;
}

/** An array field of a message or JSON object ([] when absent or of the wrong shape). */
export function list(o: unknown, key: string): Obj[] {
  if (typeof o !== "object" || o === null) return [];
  const v = (o as Obj)[key];
  return Array.isArray(v) ? (v.filter((x) => typeof x === "object" && x !== null) as Obj[]) : [];
}
