import { BUILD_ENV_SECRET } from "./recipes/dockerfile-parts.js";

/**
 * The build arguments a Dockerfile declares (`ARG NAME`, `ARG NAME=default`, several per line).
 * A `build` service's variables are passed as `--build-arg` only for these names: an undeclared
 * argument would be ignored anyway, and passing fewer values keeps fewer in `docker history`.
 */

/** Logical lines: `\` continuations joined, comment lines dropped (BuildKit's default escape). */
function logicalLines(text: string): string[] {
  const out: string[] = [];
  let current = "";
  for (const raw of text.replace(/^\uFEFF/, "").split(/\r?\n/)) {
    if (/^\s*#/.test(raw) && current === "") continue;
    if (/^\s*#/.test(raw)) continue; // a comment inside a continued instruction
    const continued = /\\\s*$/.test(raw);
    current += continued ? raw.replace(/\\\s*$/, " ") : raw;
    if (!continued) {
      out.push(current);
      current = "";
    }
  }
  if (current !== "") out.push(current);
  return out;
}

/** Whitespace-separated words, quotes kept together (`A="x y"` is one word). */
function words(text: string): string[] {
  return text.match(/(?:[^\s"']+|"(?:[^"\\]|\\.)*"|'[^']*')+/g) ?? [];
}

/** Names declared with ARG, in order, each once. */
export function parseDockerfileArgs(dockerfile: string): string[] {
  const names: string[] = [];
  for (const line of logicalLines(dockerfile)) {
    const m = /^\s*ARG\s+(.*)$/i.exec(line);
    if (!m) continue;
    for (const word of words(m[1] as string)) {
      const name = word.split("=", 1)[0] as string;
      if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !names.includes(name)) names.push(name);
    }
  }
  return names;
}

/**
 * The service variables a Dockerfile can read at build time: every one when it mounts the
 * BuildKit secret `platform-env` (the recipes do), else those it declares with ARG. Only
 * these make an image's identity, so a changed value that no build step can read (an API's
 * own Dockerfile and its DATABASE_URL) replaces the container, without a build.
 */
export function variablesSeenBy(dockerfile: string, names: readonly string[]): string[] {
  if (new RegExp(`(^|[\\s,])id=${BUILD_ENV_SECRET}([\\s,]|$)`, "m").test(dockerfile)) return [...names];
  const declared = parseDockerfileArgs(dockerfile);
  return names.filter((n) => declared.includes(n));
}
