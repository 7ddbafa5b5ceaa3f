/**
 * .dockerignore rules as BuildKit applies them to a build context. Pure: text in, a matcher
 * out. Matching is @balena/dockerignore, a port of Docker's pattern matcher (`*`, `?`,
 * `[...]`, `**`, `!` exceptions, the last matching line wins, a pattern that matches a
 * directory also matches everything below it). What it does not do is done here, from
 * Docker's own reading of the file (moby builder/dockerignore, moby/patternmatcher):
 * case-sensitive matching, refusing the patterns Docker refuses (with file and line, instead
 * of a JavaScript RegExp crash or a silent difference), and telling the walker which ignored
 * directories BuildKit still walks because an exception could re-include something in them.
 *
 * These are today's rules (moby/patternmatcher, BuildKit since Docker 23). Docker 20.10's
 * client walks with an older fsutil that differs in two corners: it never looks inside an
 * ignored directory for an exception with a glob (`node_modules` + `!**\/LICENSE`: it sends
 * less, and the hash only costs a rebuild), and inside an ignored directory it does walk, a
 * `**` rule does not reach files below the directory it matched (it sends more: a change
 * there would not rebuild). Neither arises without an exception under an ignored directory.
 */
import dockerignore from "@balena/dockerignore";
import { posix } from "node:path";
import { VisibleError } from "../../errors.js";

// A CommonJS module whose types declare an ES default export; it sets both at run time.
const ignore = dockerignore.default;

export interface IgnoreRules {
  /** True when BuildKit does not send this path (relative to the context, posix, no trailing slash). */
  ignores(path: string): boolean;
  /**
   * Whether BuildKit walks into this ignored directory, because an exception (`!pattern`)
   * could re-include something below it (BuildKit's fsutil walker makes the same decision).
   */
  mayReincludeBelow(dir: string): boolean;
}

export class DockerignoreError extends VisibleError {
  constructor(source: string, line: number, pattern: string, reason: string) {
    super(`${source}:${line}: invalid .dockerignore pattern "${pattern}": ${reason}`, {
      details: ["hint: Docker refuses this pattern too; fix or remove the line (patterns are Go filepath.Match globs, plus **)"],
    });
    this.name = "DockerignoreError";
  }
}

/** Go's filepath.Clean for slash paths ("a/./b/" -> "a/b", "" -> "."). */
function cleanPath(p: string): string {
  const n = posix.normalize(p);
  return n.length > 1 && n.endsWith("/") ? n.slice(0, -1) : n;
}

/**
 * Why Go's filepath.Match would refuse this pattern (ErrBadPattern), or undefined. Docker
 * checks every pattern this way before a build; a port of Go's own scanner, since the
 * RegExp that the matcher builds accepts some of these (`[a-]`, a trailing `\`).
 */
export function findGlobSyntaxError(pattern: string): string | undefined {
  const chars = [...pattern];
  let i = 0;
  /** One class member, possibly escaped; `-` and `]` are not allowed unescaped here. */
  const classChar = (): string | undefined => {
    const c = chars[i];
    if (c === undefined) return "unterminated [...]";
    if (c === "-" || c === "]") return "bad character range in [...]";
    if (c === "\\") i++;
    if (chars[i] === undefined) return "unterminated escape in [...]";
    i++;
    return chars[i] === undefined ? "unterminated [...]" : undefined;
  };
  while (i < chars.length) {
    const c = chars[i];
    if (c === "\\") {
      if (chars[i + 1] === undefined) return "trailing backslash";
      i += 2;
    } else if (c === "[") {
      i++;
      if (chars[i] === "^") i++;
      for (let ranges = 0; ; ranges++) {
        if (chars[i] === "]" && ranges > 0) {
          i++;
          break;
        }
        let err = classChar();
        if (err === undefined && chars[i] === "-") {
          i++;
          err = classChar();
        }
        if (err) return err;
      }
    } else {
      i++;
    }
  }
  return undefined;
}

/** The cleaned patterns of the text, as Docker reads them (comments, blanks, leading "/" dropped). */
function readPatterns(text: string, source: string): { raw: string; pattern: string; exception: boolean }[] {
  const out: { raw: string; pattern: string; exception: boolean }[] = [];
  text
    .replace(/^\uFEFF/, "")
    .split(/\r?\n/)
    .forEach((raw, index) => {
      // A comment is a line that starts with "#" before trimming (as in Docker).
      if (raw.startsWith("#")) return;
      let p = raw.trim();
      if (p === "") return;
      const exception = p.startsWith("!");
      if (exception) p = p.slice(1).trim();
      if (p === "")
        throw new DockerignoreError(source, index + 1, raw.trim(), 'a lone "!" excludes nothing (Docker: illegal exclusion pattern)');
      p = cleanPath(p);
      if (p.length > 1 && p.startsWith("/")) p = p.slice(1);
      const syntax = findGlobSyntaxError(p);
      if (syntax) throw new DockerignoreError(source, index + 1, raw.trim(), syntax);
      try {
        // Compiles the line's RegExp now, so that a pattern JavaScript cannot compile fails here.
        ignore({ ignorecase: false }).add(raw).ignores("probe");
      } catch (e) {
        throw new DockerignoreError(source, index + 1, raw.trim(), (e as Error).message);
      }
      out.push({ raw, pattern: p, exception });
    });
  return out;
}

/** An exception's fixed part: `a/b/**` and `a/b/*` reach below `a/b` like `a/b` does. */
function withoutTrailingGlob(pattern: string): string {
  return pattern.replace(/\/\*\*$/, "").replace(/\/\*$/, "");
}

/**
 * The rules of a .dockerignore text; `source` names it in errors (e.g. "api/.dockerignore").
 * Throws a DockerignoreError for a pattern Docker would refuse.
 */
export function parseDockerignore(text: string, source: string): IgnoreRules {
  const patterns = readPatterns(text, source);
  // Docker matches case-sensitively on Linux; the library's default is case-insensitive.
  const matcher = ignore({ ignorecase: false }).add(patterns.map((p) => p.raw));
  const exceptions = patterns.filter((p) => p.exception).map((p) => withoutTrailingGlob(p.pattern));
  // As in BuildKit: with a glob in any exception, every ignored directory is walked; with
  // only plain paths, just the directories that one of those paths lies below.
  const anyGlob = exceptions.some((p) => [..."*?[]^\\"].some((c) => p.includes(c)));
  return {
    ignores: (path) => matcher.ignores(path),
    mayReincludeBelow: (dir) => anyGlob || exceptions.some((p) => `${p}/`.startsWith(`${dir}/`)),
  };
}
