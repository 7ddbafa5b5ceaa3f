/**
 * Pulumi's wire form of property values, as a provider plugin sees them: secrets arrive
 * wrapped (we accept secrets, so the engine trusts us to keep them wrapped in outputs) and
 * values not yet known during preview are a sentinel string.
 */
import { SIG_KEY } from "./contract/wire.js";

export { SIG_KEY };
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

type Json = unknown;

function isSecret(v: Json): v is { value: Json } {
  return typeof v === "object" && v !== null && (v as Record<string, unknown>)[SIG_KEY] === SECRET_SIG;
}

/** Deep copy with every secret wrapper removed, for the code that talks to Docker. */
export function reveal<T = Record<string, unknown>>(v: Json): T {
  if (isSecret(v)) return reveal(v.value);
  if (Array.isArray(v)) return v.map((x) => reveal(x)) as T;
  if (typeof v === "object" && v !== null) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, reveal(x)])) as T;
  }
  return v as T;
}

/** Wraps a value as a secret for outputs. */
export function asSecret(v: Json): Json {
  return { [SIG_KEY]: SECRET_SIG, value: v };
}

/** True when any part of the value is still unknown (a preview with computed inputs). */
export function hasUnknown(v: Json): boolean {
  if (v === UNKNOWN) return true;
  if (isSecret(v)) return hasUnknown(v.value);
  if (Array.isArray(v)) return v.some(hasUnknown);
  if (typeof v === "object" && v !== null) return Object.values(v).some(hasUnknown);
  return false;
}

/** Stable JSON (sorted keys) so that map order never shows up as a change. */
export function stableJson(v: Json): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(",")}]`;
  if (typeof v === "object" && v !== null) {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(v ?? null);
}

/** The input keys whose values differ between the old state and the new inputs. */
export function changedKeys(olds: Record<string, unknown>, news: Record<string, unknown>, keys: readonly string[]): string[] {
  return keys.filter((k) => hasUnknown(news[k]) || stableJson(reveal(olds[k])) !== stableJson(reveal(news[k])));
}
