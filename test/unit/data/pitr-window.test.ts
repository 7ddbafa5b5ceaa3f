import { describe, expect, it } from "vitest";
import { type BackupRecord, chooseExpired } from "../../../src/data/backups.js";
import { baseBackupFor, parseTargetTime, recoveryWindow } from "../../../src/data/pitr-window.js";

const rec = (id: string, createdAt: string, base?: string): BackupRecord => ({
  id,
  project: "shop",
  env: "preview",
  service: "db",
  kind: "manual",
  startedAt: createdAt,
  createdAt,
  bytes: 1,
  sha256: "x",
  ...(base ? { format: "basebackup" as const, wal: { historyFile: `${id}.backup`, consistentAt: base } } : {}),
});

describe("point-in-time window", () => {
  const records = [
    rec("d1", "2026-11-26T10:00:00.000Z"),
    rec("b1", "2026-11-26T10:00:05.000Z", "2026-11-26T10:00:04.000Z"),
    rec("b2", "2026-11-26T11:00:05.000Z", "2026-11-26T11:00:04.000Z"),
  ];

  it("runs from the oldest base backup's consistent moment to the newest archived segment", () => {
    const w = recoveryWindow(records, { newest: "2026-11-26T11:30:00.000Z", segments: 7, bytes: 7 << 24 });
    expect(w).toEqual({
      from: "2026-11-26T10:00:04.000Z",
      to: "2026-11-26T11:30:00.000Z",
      baseBackups: 2,
      archive: { segments: 7, bytes: 7 << 24 },
    });
    expect(recoveryWindow(records, undefined)).toEqual({ from: "2026-11-26T10:00:04.000Z", baseBackups: 2 });
    expect(recoveryWindow([records[0] as BackupRecord], { segments: 0, bytes: 0 })).toBeUndefined();
  });

  it("recovers from the newest base backup consistent before the target; none before the window", () => {
    expect(baseBackupFor(records, new Date("2026-11-26T10:30:00Z"))?.id).toBe("b1");
    expect(baseBackupFor(records, new Date("2026-11-26T11:10:00Z"))?.id).toBe("b2");
    expect(baseBackupFor(records, new Date("2026-11-26T10:00:03Z"))).toBeUndefined();
  });

  it("reads a time as UTC unless a zone is given", () => {
    expect(parseTargetTime("2026-11-26 10:41:00")?.toISOString()).toBe("2026-11-26T10:41:00.000Z");
    expect(parseTargetTime("2026-11-26T10:41:00.25Z")?.toISOString()).toBe("2026-11-26T10:41:00.250Z");
    expect(parseTargetTime("2026-11-26 11:41+01:00")?.toISOString()).toBe("2026-11-26T10:41:00.000Z");
    expect(parseTargetTime("2026-11-26 05:41:00 -0500")?.toISOString()).toBe("2026-11-26T10:41:00.000Z");
    expect(parseTargetTime("2026-11-26 10:41:00 UTC")?.toISOString()).toBe("2026-11-26T10:41:00.000Z");
    for (const bad of ["yesterday", "2026-11-26", "2026-13-40 10:00:00", "10:41"]) expect(parseTargetTime(bad)).toBeUndefined();
  });

  it("retention keeps the newest `keep` base backups apart from the dumps", () => {
    const expired = chooseExpired([...records, rec("b0", "2026-11-26T09:00:00.000Z", "2026-11-26T09:00:00.000Z")], 2).map((r) => r.id);
    expect(expired).toEqual(["b0"]);
  });
});
