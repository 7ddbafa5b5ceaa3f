import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempPlatformHome } from "../../fixtures/temp-home.js";
import {
  clearExpiry,
  type Expiry,
  expiredEnvironments,
  hasExpiredEnvironments,
  parseDuration,
  readExpiry,
  setExpiry,
  timeLeft,
} from "../../../src/engine/env-expiry.js";
import { homePaths } from "../../../src/home/layout.js";

describe("parseDuration", () => {
  it("reads minutes, hours, days and weeks", () => {
    expect(parseDuration("90m")).toBe(90 * 60_000);
    expect(parseDuration("12h")).toBe(12 * 3_600_000);
    expect(parseDuration("7d")).toBe(7 * 86_400_000);
    expect(parseDuration("2w")).toBe(14 * 86_400_000);
  });
  it("refuses anything else", () => {
    for (const bad of ["", "7", "d", "0d", "-1d", "1.5d", "7 days", "7D", "1y", "123456d"]) expect(parseDuration(bad), bad).toBeUndefined();
  });
});

describe("timeLeft", () => {
  const now = Date.parse("2026-11-26T12:00:00Z");
  it("says what is left, coarsely", () => {
    expect(timeLeft("2026-11-26T12:41:30Z", now)).toBe("in 41m");
    expect(timeLeft("2026-11-26T15:05:00Z", now)).toBe("in 3h 5m");
    expect(timeLeft("2026-12-03T11:00:00Z", now)).toBe("in 6d 23h");
    expect(timeLeft("2026-11-26T12:00:00Z", now)).toBe("expired");
  });
});

describe("expiry records", () => {
  const _currentHome = withTempPlatformHome("each");
  const record = (project: string, env: string, expiresAt: string, backendUrl = "file:///state"): Expiry => ({
    project,
    env,
    expiresAt,
    duration: "1d",
    configFile: "/app/platform.yml",
    backendUrl,
  });

  it("lists what expired on this backend only, oldest first", () => {
    const now = Date.parse("2026-11-26T12:00:00Z");
    setExpiry(record("shop", "pr-2", "2026-11-26T11:00:00Z"));
    setExpiry(record("shop", "pr-1", "2026-11-25T11:00:00Z"));
    setExpiry(record("shop", "pr-3", "2026-11-27T11:00:00Z"));
    setExpiry(record("blog", "pr-9", "2026-11-20T11:00:00Z", "file:///other-state"));
    expect(expiredEnvironments("file:///state", now).map((e) => `${e.project}/${e.env}`)).toEqual(["shop/pr-1", "shop/pr-2"]);
    expect(expiredEnvironments("file:///other-state", now).map((e) => e.env)).toEqual(["pr-9"]);
    expect(hasExpiredEnvironments(now)).toBe(true);
    expect(hasExpiredEnvironments(Date.parse("2026-11-19T00:00:00Z"))).toBe(false);
  });

  it("is cleared, and a damaged file is ignored", () => {
    setExpiry(record("shop", "pr-1", "2026-11-25T11:00:00Z"));
    expect(readExpiry("shop", "pr-1")?.duration).toBe("1d");
    clearExpiry("shop", "pr-1");
    expect(readExpiry("shop", "pr-1")).toBeUndefined();
    writeFileSync(join(homePaths.expiryDir("shop"), "pr-4.json"), "{not json");
    expect(expiredEnvironments("file:///state")).toEqual([]);
    expect(hasExpiredEnvironments()).toBe(false);
  });
});
