import { describe, expect, it } from "vitest";
import { buildNextjsRecipe } from "../../../../src/plan/recipes/index.js";
import { MIGRATE_NOTE } from "../../../../src/plan/recipes/dockerfile-parts.js";
import { LOCAL, snapshot } from "./snapshot.js";

/**
 * A Next.js service with `migrate:` (create-t3-app's `npm run db:push`, drizzle-kit a
 * devDependency): its migration runs from the build stage, every dependency installed; the
 * service's image keeps only what it runs.
 */
const t3 = JSON.stringify({
  name: "t3",
  scripts: { build: "next build", start: "next start", "db:push": "drizzle-kit push" },
  dependencies: { next: "15.5.29", react: "19.3.1", "react-dom": "19.3.1", "drizzle-orm": "0.41.0", postgres: "3.4.5" },
  devDependencies: { "drizzle-kit": "0.30.5", typescript: "5.8.3" },
});
const files = { "package.json": t3, "package-lock.json": null, "next.config.js": "export default {};\n", "src/app/page.tsx": "" };
const stages = (dockerfile: string) =>
  Object.fromEntries(
    dockerfile
      .split(/^(?=FROM )/m)
      .slice(1)
      .map((s) => [/^FROM \S+(?: AS (\S+))?/.exec(s)?.[1] ?? "final", s]),
  );

describe("buildNextjsRecipe with a migration", () => {
  it("a migrate stage from the build stage (dev dependencies in it), the prune in a stage of its own that the image copies", () => {
    const r = buildNextjsRecipe(snapshot(files), LOCAL, { migrate: true });
    expect(r.migrateTarget).toBe("migrate");
    const s = stages(r.dockerfile);
    expect(Object.keys(s)).toEqual(["build", "migrate", "pruned", "final"]);
    // The build stage installs everything and builds; nothing is pruned there.
    expect(s.build).toMatch(/npm ci --no-audit --no-fund/);
    expect(s.build).not.toMatch(/npm prune --omit=dev/);
    expect(s.migrate).toMatch(/^FROM build AS migrate\nENV NODE_ENV=production[^\n]*\nRUN groupadd [^\n]*\nUSER app\n/);
    expect(s.pruned).toMatch(/^FROM build AS pruned\nRUN [^\n]*npm prune --omit=dev/);
    expect(s.final).toMatch(/COPY --from=pruned --chown=app:app \/app \.\//);
    expect(r.notes).toContain(MIGRATE_NOTE);
    expect(r.summary.migrate).toBe(MIGRATE_NOTE);
    expect(r.summary.start).toMatch(/^start: /);
  });

  it("standalone output: the migrate stage is the build stage; the image copies the traced server as before", () => {
    const r = buildNextjsRecipe(snapshot({ ...files, "next.config.js": 'export default { output: "standalone" };\n' }), LOCAL, {
      migrate: true,
    });
    const s = stages(r.dockerfile);
    expect(Object.keys(s)).toEqual(["build", "migrate", "final"]);
    expect(s.final).toMatch(/COPY --from=build --chown=app:app \/app\/\.next\/standalone \.\//);
  });

  it("without a migration, the Dockerfile is what it was (no migrate stage: images of existing stacks are not rebuilt)", () => {
    const r = buildNextjsRecipe(snapshot(files), LOCAL, {});
    expect(r.migrateTarget).toBeUndefined();
    expect(Object.keys(stages(r.dockerfile))).toEqual(["build", "final"]);
    expect(stages(r.dockerfile).build).toMatch(/npm prune --omit=dev/);
    expect(r.notes).not.toContain(MIGRATE_NOTE);
  });
});
