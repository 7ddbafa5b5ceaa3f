export const fmtMs = (ms: number | null | undefined) =>
  ms === null || ms === undefined
    ? "–"
    : ms < 1
      ? `${ms.toFixed(2)} ms`
      : ms < 1000
        ? `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`
        : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

export const fmtBytes = (b: number | null | undefined) => {
  if (b === null || b === undefined) return "–";
  const units = ["B", "KiB", "MiB", "GiB"];
  let v = b;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 && i > 0 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
};

export const fmtTime = (iso: string | number) =>
  new Date(iso).toLocaleString(undefined, {
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hour12: false,
  });

export const fmtAgo = (iso: string | number) => {
  const s = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)}m ago`;
  if (s < 86400) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86400)}d ago`;
};

/** Requests per second, or per minute when fewer than one a second would read as 0.00. */
export const fmtRate = (r: number) =>
  r >= 100
    ? `${r.toFixed(0)}/s`
    : r >= 1
      ? `${r.toFixed(1)}/s`
      : r * 60 >= 0.1
        ? `${(r * 60).toFixed(1)}/min`
        : r === 0
          ? "0/s"
          : "<0.1/min";

/** A stable colour per name (services in logs, traces and charts). */
const PALETTE = ["#6366f1", "#10b981", "#f59e0b", "#ec4899", "#06b6d4", "#8b5cf6", "#84cc16", "#f97316"];
export function colorOf(name: string, order?: readonly string[]): string {
  const i = order?.indexOf(name) ?? -1;
  if (i >= 0) return PALETTE[i % PALETTE.length]!;
  let h = 0;
  for (const ch of name) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return PALETTE[h % PALETTE.length]!;
}

export const RANGES = [
  { label: "15m", ms: 15 * 60_000 },
  { label: "1h", ms: 3600_000 },
  { label: "6h", ms: 6 * 3600_000 },
  { label: "24h", ms: 24 * 3600_000 },
  { label: "7d", ms: 7 * 24 * 3600_000 },
];
