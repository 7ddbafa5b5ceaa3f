import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** Never part of an image's inputs: caches, VCS data, local environments. */
const ALWAYS_IGNORED = new Set([".git", "node_modules", ".venv", "venv", "__pycache__", ".next", ".pytest_cache", ".mypy_cache", ".platform"]);

/** The simple .dockerignore forms (names and `*.ext` globs) that decide what enters the hash. */
function ignoreMatchers(context: string): ((rel: string) => boolean)[] {
  let text = "";
  try { text = readFileSync(join(context, ".dockerignore"), "utf8"); } catch { return []; }
  return text.split("\n").map((l) => l.trim().replace(/^\/+|\/+$/g, "")).filter((l) => l && !l.startsWith("#") && !l.startsWith("!"))
    .map((pattern) => {
      const re = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*\*/g, "\u0000").replace(/\*/g, "[^/]*").replace(/\u0000/g, ".*")}(/.*)?$`);
      return (rel: string) => re.test(rel);
    });
}

/**
 * A hash of everything a build reads: the files of its context (paths, modes, bytes), its
 * Dockerfile and its build arguments. Same hash, same image: no rebuild, no restart.
 */
export function hashBuildInputs(context: string, dockerfile: string, buildArgs: Record<string, string>): string {
  const h = createHash("sha256");
  h.update(dockerfile).update("\0").update(JSON.stringify(Object.entries(buildArgs).sort())).update("\0");
  const ignored = ignoreMatchers(context);
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      const rel = relative(context, full);
      if (ALWAYS_IGNORED.has(name) || ignored.some((m) => m(rel))) continue;
      const st = statSync(full);
      if (st.isDirectory()) walk(full);
      else if (st.isFile()) h.update(rel).update(`\0${st.mode & 0o111 ? "x" : "-"}\0`).update(readFileSync(full)).update("\0");
    }
  };
  walk(context);
  return h.digest("hex");
}
