import { describe, expect, it } from "vitest";
import { Sessions, allowedHost, sameSecret } from "../../../src/studio/auth.js";

describe("Studio sign-in tokens", () => {
  it("exchanges a token once for a session; a second use is refused", () => {
    const s = new Sessions();
    const token = s.mintToken();
    const session = s.exchange(token);
    expect(session).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(s.isValid(session)).toBe(true);
    expect(s.exchange(token)).toBeUndefined();
    expect(s.isValid("made-up")).toBe(false);
    s.end(session);
    expect(s.isValid(session)).toBe(false);
  });

  it("refuses an expired token", () => {
    let now = 1_000_000;
    const s = new Sessions(() => now);
    const token = s.mintToken();
    now += 11 * 60 * 1000;
    expect(s.exchange(token)).toBeUndefined();
  });

  it("compares keys in constant time and refuses a missing one", () => {
    expect(sameSecret("abc", "abc")).toBe(true);
    expect(sameSecret("abd", "abc")).toBe(false);
    expect(sameSecret(undefined, "abc")).toBe(false);
  });
});

describe("Host and Origin check", () => {
  it.each([
    ["127.0.0.1:4680", undefined, true],
    ["localhost:4680", "http://localhost:4680", true],
    ["127.0.0.1:4680", "http://127.0.0.1:4680", true],
    ["evil.example:4680", undefined, false],
    ["127.0.0.1:4681", undefined, false],
    ["127.0.0.1:4680", "http://evil.example", false],
    ["127.0.0.1:4680", "http://localhost:4680", false],
    [undefined, undefined, false],
  ])("host %s origin %s -> %s", (host, origin, ok) => {
    expect(allowedHost(host, origin, 4680)).toBe(ok);
  });
});
