import { readFile, stat } from "node:fs/promises";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { positionInText } from "./locate.js";
import { formatSize, MAX_BYTES, MAX_SIZE_TEXT } from "./prescan.js";
import type { Diagnostic, ValidateOptions, ValidationResult } from "./types.js";
import { validateConfig } from "./validate-config.js";

export type LoadResult = ValidationResult & { source?: string };

function fail(file: string, code: string, message: string, hint: string, at = { line: 1, col: 1 }): LoadResult {
  const d: Diagnostic = { file, line: at.line, col: at.col, path: "", code, message, hint, severity: "error" };
  return { ok: false, errors: [d], warnings: [] };
}

/**
 * The I/O wrapper around validateConfig: reads the file (refusing what cannot be a
 * platform.yml before reading all of it) and validates it against its own directory.
 * Anything that stops us reading is one diagnostic with code "unreadable".
 */
/** Reads and validates platform.yml; paths in it are relative to `projectDir` (default: its directory). */
export async function loadConfig(path: string, projectDir = dirname(path), secrets?: ValidateOptions["secrets"]): Promise<LoadResult> {
  let size: number;
  try {
    const st = await stat(path);
    if (st.isDirectory()) {
      const inside = join(path, "platform.yml");
      const hint = existsSync(inside)
        ? `pass the file itself: --file ${inside}`
        : "pass the path of the platform.yml file, not its directory";
      return fail(path, "unreadable", `${path} is a directory, not a file`, hint);
    }
    // A FIFO or device (e.g. /dev/zero) could block or never end: only regular files are read.
    if (!st.isFile()) return fail(path, "unreadable", `${path} is not a regular file`, "pass the path of the platform.yml file");
    size = st.size;
  } catch (err) {
    return fail(path, "unreadable", `cannot read ${path}: ${reason(err)}`, missingHint(err));
  }
  if (size > MAX_BYTES) {
    return fail(
      path,
      "too-large",
      `file is ${formatSize(size)}; platform.yml may be at most ${MAX_SIZE_TEXT}`,
      "is this the right file? a platform.yml with 50 services is about 10 KiB",
    );
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    return fail(path, "unreadable", `cannot read ${path}: ${reason(err)}`, missingHint(err));
  }
  const bad = firstInvalidUtf8(bytes);
  if (bad >= 0) {
    const prefix = bytes.subarray(0, bad).toString("utf8");
    const byte = bytes[bad]!.toString(16).padStart(2, "0");
    return fail(
      path,
      "invalid-utf8",
      `not valid UTF-8 text (byte 0x${byte})`,
      "save the file as UTF-8; check that --file points at the right file",
      positionInText(prefix, prefix.length),
    );
  }
  const source = bytes.toString("utf8");
  const result = validateConfig(source, { file: path, projectDir, ...(secrets ? { secrets } : {}) });
  return { ...result, source: source.charCodeAt(0) === 0xfeff ? source.slice(1) : source };
}

function reason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === "ENOENT") return "no such file";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EISDIR") return "it is a directory";
  if (code === "ENOTDIR") return "a part of the path is not a directory";
  return (err as Error)?.message ?? String(err);
}

function missingHint(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === "ENOENT") return "run platform validate in the project directory, or pass --file path/to/platform.yml";
  if (code === "EACCES" || code === "EPERM") return "check the file's permissions";
  return "check the path";
}

/** Byte offset of the first invalid UTF-8 sequence, or -1. Overlongs and surrogates are invalid too. */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let n: number;
    let min: number;
    if (c >= 0xc2 && c <= 0xdf) [n, min] = [1, 0x80];
    else if (c >= 0xe0 && c <= 0xef) [n, min] = [2, 0x800];
    else if (c >= 0xf0 && c <= 0xf4) [n, min] = [3, 0x10000];
    else return i;
    let cp = c & (0x3f >> n);
    for (let k = 1; k <= n; k++) {
      const cc = b[i + k];
      if (cc === undefined || (cc & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return -1;
}
