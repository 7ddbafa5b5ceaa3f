import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir, withTempPlatformHome } from "../../fixtures/temp-home.js";
import { acquireStackLock } from "../../../src/engine/lock.js";
import { linkedDirs, linkedProject, linkProject, unlinkDir } from "../../../src/engine/links.js";
import { isAlive, processStart } from "../../../src/process-lock.js";

const currentHome = withTempPlatformHome("each");

/** The pid of a process that has exited. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString());
}

describe("the stack lock", () => {
  it("refuses a second holder while the first lives, naming it", () => {
    const lock = acquireStackLock("shop", "preview", "deploy", "dep_1");
    expect(() => acquireStackLock("shop", "preview", "deploy", "dep_2")).toThrow(
      new RegExp(`shop \\(preview\\) is busy: deploy dep_1 by \\S+@${hostname()} \\(pid ${process.pid}, since `),
    );
    expect(() => acquireStackLock("shop", "prod", "deploy").release()).not.toThrow();
    lock.release();
    acquireStackLock("shop", "preview", "destroy").release();
  });

  it("takes over the lock of a process that is gone, and says whose it was", () => {
    const file = join(currentHome(), "projects", "shop", "locks", "preview.json");
    acquireStackLock("shop", "preview", "deploy").release();
    writeFileSync(
      file,
      JSON.stringify({ pid: deadPid(), host: hostname(), user: "u", operation: "deploy", deploymentId: "dep_dead", startedAt: "t" }),
    );
    const lock = acquireStackLock("shop", "preview", "deploy", "dep_new");
    expect(lock.recoveredFrom).toMatchObject({ deploymentId: "dep_dead" });
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ pid: process.pid, deploymentId: "dep_new" });
    lock.release();
  });

  it("does not mistake a reused pid for the holder (start times differ)", () => {
    expect(isAlive(process.pid, processStart(process.pid))).toBe(true);
    expect(isAlive(process.pid, "1")).toBe(false);
  });
});

describe("links between directories and projects", () => {
  it("keeps one link per directory, lists a project's directories, and unlinks", () => {
    const a = tempDir("dir-a-");
    const b = tempDir("dir-b-");
    linkProject(a, "shop");
    linkProject(b, "shop");
    expect(linkedProject(a)).toBe("shop");
    expect(linkedDirs("shop").sort()).toEqual([a, b].sort());
    expect(unlinkDir(b)).toBe(true);
    expect(linkedProject(b)).toBeUndefined();
    expect(linkedDirs("shop")).toEqual([a]);
  });

  it("reads links written by platform 0.1 (links.json)", () => {
    const a = tempDir("dir-old-");
    writeFileSync(join(currentHome(), "links.json"), JSON.stringify({ [a]: "legacy" }));
    expect(linkedProject(a)).toBe("legacy");
    expect(linkedDirs("legacy")).toEqual([a]);
  });
});
