import type { SourceSnapshot } from "../../../../src/plan/recipes/index.js";

/**
 * A SourceSnapshot from a table: path -> text, or null for a file that is only listed
 * (lockfiles, large or binary files), as scanSource does.
 */
export function snapshot(files: Record<string, string | null | undefined>): SourceSnapshot {
  return {
    files: Object.keys(files)
      .filter((f) => files[f] !== undefined)
      .sort(),
    read: (path) => files[path] ?? undefined,
  };
}

export const LOCAL = { python: "platform-local/python:3.11", node: "platform-local/node:22" };
export const PUBLIC = { python: "python:3.11-slim", node: "node:22-slim" };

/** The lines of one stage of a generated Dockerfile: 0 = build, 1 = final. */
export function stage(dockerfile: string, index: 0 | 1): string[] {
  const stages = dockerfile.split(/^(?=FROM )/m).slice(1);
  return (stages[index] ?? "").split("\n").filter((l) => l.trim() !== "");
}
