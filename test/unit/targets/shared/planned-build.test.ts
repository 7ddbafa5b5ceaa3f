import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { PlannedService } from "../../../../src/plan/types.js";
import { plannedBuilds, sameBuildInputs, sameSeenEnv } from "../../../../src/targets/shared/planned-build.js";

const dir = mkdtempSync(join(tmpdir(), "planned-build-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const text = (t: string) => ({ kind: "text" as const, text: t });
const ref = (service: string, property: string) => ({ kind: "ref" as const, service, property });

/** A service built from its own Dockerfile that declares GREETING and DATABASE_URL as build arguments. */
function service(env: PlannedService["env"], dockerfile = "FROM scratch\nARG GREETING\nARG DATABASE_URL\n"): PlannedService {
  writeFileSync(join(dir, "Dockerfile"), dockerfile);
  return {
    name: "api",
    build: { kind: "dockerfile", context: dir, dockerfilePath: join(dir, "Dockerfile"), buildArgs: {} },
    env,
    buildEnv: Object.keys(env),
  } as unknown as PlannedService;
}

describe("what platform.yml gives a build now, before the engine", () => {
  it("the variables the build reads: written-out values, null for references; the others left out", () => {
    const s = service({ GREETING: [text("hello "), text("world")], DATABASE_URL: [ref("database", "url")], OTHER: [text("x")] });
    const b = plannedBuilds([s, { name: "db", env: {}, buildEnv: [] } as unknown as PlannedService]);
    expect([...b.keys()]).toEqual(["api"]);
    expect(b.get("api")?.seenEnv).toEqual({ GREETING: "hello world", DATABASE_URL: null });
    expect(b.get("api")?.dockerfile).toContain("ARG GREETING");
  });

  it("the same build when only the code changed; another for a changed written-out value, or a variable the build reads added or gone", () => {
    const build = plannedBuilds([service({ GREETING: [text("hello")], DATABASE_URL: [ref("database", "url")] })]).get("api")!;
    const last = { GREETING: "hello", DATABASE_URL: "postgresql://old", OTHER: "y" };
    expect(sameSeenEnv(build, last)).toBe(true);
    // A reference resolves in the program: taken as unchanged (an early build with another value is just not taken).
    expect(sameSeenEnv(build, { ...last, DATABASE_URL: "postgresql://new" })).toBe(true);
    expect(sameSeenEnv(build, { ...last, GREETING: "bonjour" })).toBe(false);
    expect(sameSeenEnv(build, { DATABASE_URL: "postgresql://old" })).toBe(false);
    const fewer = plannedBuilds([service({ DATABASE_URL: [ref("database", "url")] })]).get("api")!;
    expect(sameSeenEnv(fewer, last)).toBe(false);
  });

  it("builds differ by Dockerfile, ignore rules, arguments or context, not by the arguments' order", () => {
    const a = { context: "/a", dockerfile: "FROM scratch\n", buildArgs: { X: "1", Y: "2" } };
    expect(sameBuildInputs(a, { ...a, buildArgs: { Y: "2", X: "1" } })).toBe(true);
    for (const b of [{ context: "/b" }, { dockerfile: "FROM x\n" }, { dockerignore: "*.md\n" }, { buildArgs: { X: "1" } }])
      expect(sameBuildInputs(a, { ...a, ...b }), JSON.stringify(b)).toBe(false);
  });
});
