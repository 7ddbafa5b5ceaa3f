import { readFileSync } from "node:fs";

/** A JSON record the set-up wrote under the platform home; missing or unreadable reads as empty. */
export function readRecord<T>(file: string): Partial<T> {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Partial<T>;
  } catch {
    return {};
  }
}
