import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { markdownAnchors } from "../../../scripts/check-docs.js";

/**
 * Studio's links to the docs (DocsLink page="guide/x.html#anchor" in studio-ui): each names a page
 * of docs/ and a heading on it, as the built site has them (GitHub's heading ids: scripts/check-docs.ts).
 */
const ROOT = join(import.meta.dirname, "..", "..", "..");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : /\.tsx?$/.test(p) ? [p] : [];
  });
}

const links = sources(join(ROOT, "studio-ui", "src")).flatMap((f) =>
  [...readFileSync(f, "utf8").matchAll(/<DocsLink page="([^"]+)"/g)].map((m) => ({ file: f.slice(ROOT.length + 1), page: m[1]! })),
);

describe("Studio's links to the docs", () => {
  it("are on the empty states and the error box", () => {
    expect(links.length).toBeGreaterThanOrEqual(7);
    expect(new Set(links.map((l) => l.file.split("/").pop()))).toEqual(
      new Set(["ui.tsx", "Database.tsx", "Metrics.tsx", "Resources.tsx", "Logs.tsx", "Services.tsx"]),
    );
  });

  it.each(links)("$file → $page names a page and a heading of docs/", ({ page }) => {
    const [path, anchor] = page.split("#") as [string, string | undefined];
    expect(path).toMatch(/\.html$/);
    const md = join(ROOT, "docs", path.replace(/\.html$/, ".md"));
    expect(existsSync(md), md).toBe(true);
    if (anchor) expect([...markdownAnchors(readFileSync(md, "utf8"))]).toContain(anchor);
  });
});
