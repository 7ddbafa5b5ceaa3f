import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { refineWithRepository } from "../../../src/engine/diagnose-repository.js";
import { tempDir } from "../../fixtures/temp-home.js";

const line = (dir: string) =>
  `api exited with code 1 before it was healthy\n  diagnosis: the app serves ${dir} at start, and no build of this service made it (a frontend's build output, made by another part of the repository): build ...\n--- last log lines ---`;

describe("a start diagnosis made sharper with the repository (engine/diagnose-repository.ts)", () => {
  it("a directory the repository has at its root, outside the service's source: says the layout is the cause", () => {
    const repo = tempDir("diag-repo-");
    mkdirSync(join(repo, "static"));
    const out = refineWithRepository(line("static"), repo);
    expect(out).toContain(
      "  diagnosis: the app serves static at start, and the repository has static/ at its root, outside the service's source",
    );
    expect(out).toContain("move static/ into the service's directory");
    expect(out.startsWith("api exited with code 1")).toBe(true);
    expect(out.endsWith("--- last log lines ---")).toBe(true);
  });

  it("leaves the diagnosis as it is when the repository has no such directory, or the path is absolute", () => {
    const repo = tempDir("diag-repo-");
    expect(refineWithRepository(line("static"), repo)).toBe(line("static"));
    mkdirSync(join(repo, "app"));
    expect(refineWithRepository(line("/app/backend/app/frontend"), repo)).toBe(line("/app/backend/app/frontend"));
    expect(refineWithRepository(line("../outside"), repo)).toBe(line("../outside"));
  });
});
