import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * docs/internals/architecture.md is the architecture page that counts: it names every room of
 * src/ and every layering rule that `npm run lint` enforces, so a new room or rule is written
 * down where a newcomer reads, and a removed one leaves the page.
 */
const ROOT = join(import.meta.dirname, "..", "..", "..");
const page = readFileSync(join(ROOT, "docs", "internals", "architecture.md"), "utf8");
const rules = [...readFileSync(join(ROOT, ".dependency-cruiser.cjs"), "utf8").matchAll(/name: "([a-z-]+)"/g)].map((m) => m[1]!);
const rooms = readdirSync(join(ROOT, "src")).filter((n) => statSync(join(ROOT, "src", n)).isDirectory());
const pageRules = [...page.matchAll(/^\| `([a-z-]+)` \| /gm)].map((m) => m[1]!).filter((n) => !rooms.includes(n.replace(/\/$/, "")));

describe("the architecture page", () => {
  it("names every room of src/", () => {
    expect(rooms.length).toBeGreaterThan(10);
    for (const room of rooms) expect(page, room).toContain(`| \`${room}/\` |`);
  });

  it("lists exactly the layering rules of .dependency-cruiser.cjs", () => {
    expect(rules.length).toBeGreaterThan(10);
    expect(pageRules.sort()).toEqual([...rules].sort());
  });
});
