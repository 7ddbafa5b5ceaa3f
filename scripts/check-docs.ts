/**
 * The documentation's link check, run by `npm run docs` after `vitepress build docs`:
 *   - the built site (dist-docs/): every `<a href>` and `<img src>` that points into the site names
 *     a file that exists, and its #fragment an element id on that page. VitePress fails the build
 *     on a link to a missing page, but not on a missing anchor: this checks both.
 *   - README.md and docs/**\/*.md, as GitHub shows them: every relative link names a file of the
 *     repository, and its #fragment a heading of that markdown file (GitHub's heading ids, which
 *     the site uses too: docs/.vitepress/config.mts).
 * Exit 1 with one line per broken link. Run alone: npx tsx scripts/check-docs.ts [SITE_DIR]
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, posix, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DOCS_BASE } from "../src/studio/docs-site.js";

export interface BrokenLink {
  /** The page or markdown file the link is on, relative to the directory checked. */
  file: string;
  link: string;
  reason: string;
}

/**
 * GitHub's id for a heading (github-slugger): lowercase, punctuation and symbols dropped, spaces
 * to '-'. `platform.yml reference` is `platformyml-reference`. The site is built with the same ids.
 */
export function githubSlug(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
    .replace(/ /g, "-");
}

/** A heading's text as GitHub slugs it: code spans, links and emphasis reduced to their text. */
function headingText(markdown: string): string {
  // Odd pieces are code spans, kept as written; the prose between them loses its markup.
  return markdown
    .split(/`([^`]*)`/)
    .map((piece, i) =>
      i % 2 === 1
        ? piece
        : piece
            .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
            .replace(/(\*\*|__|\*)/g, "")
            .replace(/<[^>]+>/g, ""),
    )
    .join("");
}

/** Markdown lines outside fenced code blocks, with their line numbers. */
function proseLines(markdown: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let fence: string | undefined;
  markdown.split("\n").forEach((text, i) => {
    const m = /^\s*(```+|~~~+)/.exec(text);
    if (m) {
      if (fence === undefined) fence = m[1]![0]!;
      else if (m[1]![0] === fence) fence = undefined;
      return;
    }
    if (fence === undefined) out.push({ line: i + 1, text });
  });
  return out;
}

/** The ids GitHub gives the headings of a markdown file, duplicates numbered as it does (-1, -2). */
export function markdownAnchors(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (!m) continue;
    const base = githubSlug(headingText(m[1]!));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

/** Each file read once. */
function memo<T>(read: (path: string) => T): (path: string) => T {
  const cache = new Map<string, T>();
  return (path) => {
    if (!cache.has(path)) cache.set(path, read(path));
    return cache.get(path)!;
  };
}

const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/** `[text](target)` and `![alt](target)` links outside code, with their line numbers. */
export function markdownLinks(markdown: string): Array<{ line: number; target: string }> {
  const links: Array<{ line: number; target: string }> = [];
  for (const { line, text } of proseLines(markdown)) {
    const prose = text.replace(/`[^`]*`/g, "");
    for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ line, target: m[1]! });
  }
  return links;
}

/** Broken relative links of markdown files (README.md, docs pages), checked as GitHub would follow them. */
export function checkMarkdownFiles(root: string, files: string[]): BrokenLink[] {
  const broken: BrokenLink[] = [];
  const anchors = memo((path) => markdownAnchors(readFileSync(path, "utf8")));
  for (const file of files) {
    const path = resolve(root, file);
    for (const { line, target } of markdownLinks(readFileSync(path, "utf8"))) {
      if (EXTERNAL.test(target)) continue;
      const hash = target.indexOf("#");
      const pathPart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
      const fragment = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const where = `${file}:${line}`;
      const dest = pathPart === "" ? path : resolve(dirname(path), pathPart);
      if (!existsSync(dest)) {
        broken.push({ file: where, link: target, reason: `no such file: ${relative(root, dest)}` });
        continue;
      }
      if (fragment && dest.endsWith(".md") && !anchors(dest).has(fragment)) {
        broken.push({ file: where, link: target, reason: `no heading with the id "${fragment}" in ${relative(root, dest)}` });
      }
    }
  }
  return broken;
}

function walk(dir: string, keep: (name: string) => boolean, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, keep, out);
    else if (keep(name)) out.push(path);
  }
  return out;
}

function decodeEntities(s: string): string {
  return s
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

/** The element ids of an HTML page. */
export function htmlIds(html: string): Set<string> {
  return new Set([...html.matchAll(/\sid=(?:"([^"]*)"|'([^']*)')/g)].map((m) => decodeEntities(m[1] ?? m[2] ?? "")));
}

/** Broken links of a built static site: pages and assets that do not exist, anchors that no element has. */
export function checkSite(siteDir: string, base = "/"): BrokenLink[] {
  const root = resolve(siteDir);
  const pages = walk(root, (n) => n.endsWith(".html"));
  if (pages.length === 0) return [{ file: siteDir, link: "", reason: "no HTML page: build the site first (vitepress build docs)" }];
  const ids = memo((page) => htmlIds(readFileSync(page, "utf8")));
  const broken: BrokenLink[] = [];
  for (const page of pages) {
    const html = readFileSync(page, "utf8");
    const file = relative(root, page).split("\\").join("/");
    const links = [
      ...[...html.matchAll(/<a\b[^>]*?\shref=(?:"([^"]*)"|'([^']*)')/g)].map((m) => m[1] ?? m[2] ?? ""),
      ...[...html.matchAll(/<img\b[^>]*?\ssrc=(?:"([^"]*)"|'([^']*)')/g)].map((m) => m[1] ?? m[2] ?? ""),
    ].map(decodeEntities);
    for (const link of new Set(links)) {
      if (EXTERNAL.test(link)) continue;
      const hash = link.indexOf("#");
      const pathPart = (hash < 0 ? link : link.slice(0, hash)).replace(/\?.*$/, "");
      const fragment = hash < 0 ? "" : decodeURIComponent(link.slice(hash + 1));
      let target = page;
      if (pathPart !== "") {
        const path = decodeURIComponent(pathPart);
        // The site is served under `base` (Studio serves it at /docs/): an absolute link outside it goes nowhere.
        if (path.startsWith("/") && !path.startsWith(base)) {
          broken.push({ file, link, reason: `outside the site's base ${base}` });
          continue;
        }
        const fromRoot = path.startsWith("/") ? path.slice(base.length) : posix.join(posix.dirname(file), path);
        const candidates = path.endsWith("/") ? [`${fromRoot}index.html`] : [fromRoot, `${fromRoot}.html`, `${fromRoot}/index.html`];
        const found = candidates.map((c) => join(root, c)).find((c) => existsSync(c) && statSync(c).isFile());
        if (!found) {
          broken.push({ file, link, reason: `no such page or file in the site: ${candidates[0]}` });
          continue;
        }
        target = found;
      }
      if (fragment !== "" && target.endsWith(".html") && !ids(target).has(fragment)) {
        broken.push({ file, link, reason: `no element with the id "${fragment}" on ${relative(root, target)}` });
      }
    }
  }
  return broken;
}

/** README.md and every markdown page of docs/, relative to the repository root. */
export function repositoryMarkdown(root: string): string[] {
  const docs = join(root, "docs");
  const pages = walk(docs, (n) => n.endsWith(".md")).filter((p) => !relative(docs, p).split(/[\\/]/).includes("node_modules"));
  return ["README.md", ...pages.map((p) => relative(root, p))];
}

function main(): void {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  const site = resolve(process.argv[2] ?? join(root, "dist-docs"));
  const markdown = repositoryMarkdown(root);
  const broken = [...checkSite(site, DOCS_BASE), ...checkMarkdownFiles(root, markdown)];
  for (const b of broken) process.stderr.write(`✖ ${b.file}: ${b.link}: ${b.reason}\n`);
  if (broken.length > 0) {
    process.stderr.write(`✖ ${broken.length} broken link${broken.length === 1 ? "" : "s"} in the docs\n`);
    process.exit(1);
  }
  const pages = walk(site, (n) => n.endsWith(".html")).length;
  process.stdout.write(
    `✓ docs: ${pages} pages in ${relative(root, site) || "."} and ${markdown.length} markdown files, no broken link or anchor\n`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
