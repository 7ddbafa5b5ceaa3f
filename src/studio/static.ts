import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The built web UI (vite build of studio-ui/), beside the compiled server in dist/. */
export const UI_DIR = fileURLToPath(new URL("../studio-ui/", import.meta.url));

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".woff2": "font/woff2",
};

export interface UiFile {
  body: Buffer;
  type: string;
  immutable: boolean;
}

/**
 * Every file of the built UI, read once at start: a request can only get one of these (no
 * path from a URL ever reaches the file system). Vite's hashed assets are cached for good.
 */
export function loadUi(dir = UI_DIR): Map<string, UiFile> {
  const files = new Map<string, UiFile>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else
        files.set(`/${relative(dir, p).split("\\").join("/")}`, {
          body: readFileSync(p),
          type: TYPES[extname(p)] ?? "application/octet-stream",
          immutable: p.includes("/assets/"),
        });
    }
  };
  try {
    walk(dir);
  } catch {
    /* not built: the server says so on / */
  }
  return files;
}
