/**
 * How long the stack's database certificates last and when a deploy renews them. A module of
 * its own, apart from certificates.ts: the program and every diff read these, and only making
 * a certificate needs node-forge (12 MiB of a process that loads it).
 */
export { TLS_DEFAULTS } from "../contract/tls.js";

const DAY_MS = 86_400_000;

/** True when a certificate ends within `renewBeforeDays` of `now` (or has ended, or its end is unreadable). */
export function isNearExpiry(notAfter: unknown, renewBeforeDays: number, now = new Date()): boolean {
  const end = typeof notAfter === "string" ? Date.parse(notAfter) : Number.NaN;
  return !Number.isFinite(end) || end - now.getTime() < renewBeforeDays * DAY_MS;
}
