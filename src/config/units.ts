import type { PresetName } from "./types.js";

const MI = 1024 ** 2;
const GI = 1024 ** 3;
const TI = 1024 ** 4;

/**
 * CPU, memory and process count of each resources preset; the target enforces them as
 * container limits (migrations included). The process cap stops a fork bomb or a thread leak
 * from taking the engine's other containers down with it.
 */
export const PRESETS: Record<PresetName, { cpus: number; memoryBytes: number; pidsLimit: number }> = {
  small: { cpus: 0.5, memoryBytes: 512 * MI, pidsLimit: 512 },
  medium: { cpus: 1, memoryBytes: 1 * GI, pidsLimit: 1024 },
  large: { cpus: 2, memoryBytes: 2 * GI, pidsLimit: 2048 },
};

export const PRESET_NAMES = ["small", "medium", "large"] as const;

const STORAGE_UNITS = { Mi: MI, Gi: GI, Ti: TI } as const;
export const STORAGE_RE = /^([1-9][0-9]{0,9})(Mi|Gi|Ti)$/;
export const STORAGE_MIN_BYTES = 64 * MI;
export const STORAGE_MAX_BYTES = 16 * TI;

/** "10Gi" -> bytes; undefined when the text is not `<n>Mi|Gi|Ti`. Range is checked by the caller. */
export function parseStorage(text: string): number | undefined {
  const m = STORAGE_RE.exec(text);
  if (!m) return undefined;
  return Number(m[1]) * STORAGE_UNITS[m[2] as keyof typeof STORAGE_UNITS];
}

/**
 * A likely intended storage value for a near miss: decimal units (10G, 10GB), lowercase (10gi),
 * a space (10 Gi). Binary units are what volumes are sized in, so we suggest, never guess silently.
 */
export function suggestStorage(text: string): string | undefined {
  const m = /^\s*([0-9]+)\s*([mgt])(?:i|b|ib)?\s*$/i.exec(text);
  if (!m?.[1] || !m[2]) return undefined;
  return `${Number(m[1])}${m[2].toUpperCase()}i`;
}

const DURATION_UNITS = { s: 1, m: 60, h: 3600 } as const;
export const DURATION_RE = /^([0-9]{1,9})(s|m|h)$/;
export const DURATION_MAX_SECONDS = 24 * 3600;

/** "5m" -> 300; undefined when the text is not `<n>s|<n>m|<n>h`. Range is checked by the caller. */
export function parseDuration(text: string): number | undefined {
  const m = DURATION_RE.exec(text);
  if (!m) return undefined;
  return Number(m[1]) * DURATION_UNITS[m[2] as keyof typeof DURATION_UNITS];
}

/** A likely intended duration for a near miss: "5 min", "300", "1h30m" (as minutes). */
export function suggestDuration(text: string): string | undefined {
  const t = text.trim().toLowerCase();
  if (/^[0-9]+$/.test(t)) return `${Number(t)}s`;
  const compound = /^(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+)s)?$/.exec(t.replace(/\s+/g, ""));
  if (compound && t !== "") {
    const secs = Number(compound[1] ?? 0) * 3600 + Number(compound[2] ?? 0) * 60 + Number(compound[3] ?? 0);
    if (secs > 0) return secs % 3600 === 0 ? `${secs / 3600}h` : secs % 60 === 0 ? `${secs / 60}m` : `${secs}s`;
  }
  const m = /^([0-9]+)\s*(sec|secs|second|seconds|min|mins|minute|minutes|hr|hrs|hour|hours)$/.exec(t);
  if (!m?.[1] || !m[2]) return undefined;
  return `${Number(m[1])}${m[2][0]}`;
}
