import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../fixtures/temp-home.js";
import { humanBytes } from "../../../src/cli/db-backup-action.js";

/** The real CLI's refusals for db backup, backups, restore and deploy --from that come before the engine. */
const ROOT = join(import.meta.dirname, "..", "..", "..");
const dir = join(ROOT, "examples", "fullstack");
const run = (args: string[]) =>
  spawnSync(process.execPath, [join(ROOT, "dist", "bin.js"), ...args, "--project", "backup-unit"], {
    cwd: dir,
    encoding: "utf8",
    env: {
      ...process.env,
      CI: "true",
      PLATFORM_BACKUP_DIR: tempDir("bk-unit-"),
      PLATFORM_BACKEND_URL: `file://${tempDir("bk-unit-state-")}`,
      PLATFORM_PASSPHRASE: "unit",
    },
  });

describe("db backup, backups and restore: bad input", () => {
  it("refuses a service that is not postgres, or not in platform.yml, naming the postgres ones", () => {
    const api = run(["db", "backup", "api"]);
    expect(api.status).toBe(2);
    expect(api.stderr).toContain("api is a fastapi service: backups are made of postgres services (database)");
    const missing = run(["db", "restore", "dtabase", "--yes"]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('no service "dtabase"');
    expect(missing.stderr).toContain("postgres services: database");
  });

  it("a restore with no backup says how to make one; a named backup that does not exist says how to list them", () => {
    const none = run(["db", "restore", "database", "--yes"]);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain("no backup of database in backup-unit (preview) to restore: platform db backup database makes one");
    const named = run(["db", "restore", "database", "database-20261126T104100Z-0000", "--yes"]);
    expect(named.status).toBe(2);
    expect(named.stderr).toContain("platform db backups database lists them");
  });

  it("backups with none yet says how to make one", () => {
    const r = run(["db", "backups"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("No backups of any database in backup-unit (preview) yet: platform db backup SERVICE makes one");
  });

  it("sizes read as people read them", () => {
    expect([0, 1023, 1024, 1536, 10 * 1024, 5 * 1024 ** 2 + 1, 3 * 1024 ** 3].map(humanBytes)).toEqual([
      "0 B",
      "1023 B",
      "1.0 kB",
      "1.5 kB",
      "10 kB",
      "5.0 MB",
      "3.0 GB",
    ]);
  });
});
