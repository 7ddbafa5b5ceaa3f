/** A database value as the browser shows it: text, or null. Bytes as \x hex, like psql. */
export function toCell(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? String(v) : v.toISOString();
  if (Buffer.isBuffer(v)) return `\\x${v.toString("hex")}`;
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** Statements a cursor can hold: their rows are fetched up to a limit instead of all at once. */
export function isCursorable(sql: string): boolean {
  return /^\s*(select|table|values)\b/i.test(stripComments(sql));
}

export function stripComments(sql: string): string {
  return sql.replace(/^(\s*(--[^\n]*\n|\/\*[\s\S]*?\*\/))*/, "");
}

/** The statement without its trailing semicolons (one statement per run). */
export function trimStatement(sql: string): string {
  return sql.trim().replace(/;+\s*$/, "");
}
