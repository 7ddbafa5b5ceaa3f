/** How backups read in the CLI: sizes and UTC times. */

/** Bytes as people read them: 1.4 MB. */
export function humanBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["kB", "MB", "GB", "TB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

/** An ISO time as `2026-11-26 10:41:00Z`. */
export const when = (iso: string): string => iso.replace("T", " ").replace(/\.\d+Z$/, "Z");
