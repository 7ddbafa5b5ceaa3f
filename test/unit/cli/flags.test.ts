import { describe, expect, it } from "vitest";
import { checkAppsDomain, checkEnvName, checkExpires, checkHttpsPort, checkProjectName } from "../../../src/cli/flags.js";
import { VisibleError } from "../../../src/errors.js";

function refusal(f: () => unknown): VisibleError {
  try {
    f();
  } catch (e) {
    return e as VisibleError;
  }
  throw new Error("accepted");
}

describe("names and values from the command line", () => {
  it.each(["../../x", "a/b", "X", "-a", "a-", "a_b", "", "a".repeat(44)])("refuses project %j with exit 2 and a hint", (v) => {
    const e = refusal(() => checkProjectName(v));
    expect(e).toBeInstanceOf(VisibleError);
    expect(e.exitCode).toBe(2);
    expect(e.message).toMatch(/^--project: project name/);
    expect(e.details.join("\n")).toMatch(/hint: /);
  });

  it("accepts DNS labels and gives them back unchanged", () => {
    expect(checkProjectName("shop-eu")).toBe("shop-eu");
    expect(checkEnvName("eu-prod")).toBe("eu-prod");
  });

  it.each(["Prod", "a.b", "x".repeat(33)])("refuses env %j", (v) =>
    expect(refusal(() => checkEnvName(v)).message).toMatch(/^--env: environment name/),
  );

  it.each(["localhost", "apps.example.test", "127.0.0.1.nip.io"])("accepts apps domain %s", (v) => expect(checkAppsDomain(v)).toBe(v));
  it.each(["a..b", "Apps.Test", "a_b.test", "x.", "/etc"])("refuses apps domain %j", (v) =>
    expect(refusal(() => checkAppsDomain(v)).exitCode).toBe(2),
  );

  it("takes ports 1 to 65535, written as plain numbers", () => {
    expect(checkHttpsPort("8443")).toBe(8443);
    for (const v of ["0", "65536", "-1", "8443x", "1e3", " 443", ""])
      expect(refusal(() => checkHttpsPort(v, "PLATFORM_HTTPS_PORT")).message).toMatch(/^PLATFORM_HTTPS_PORT: /);
  });

  it("--expires: a duration on an extra environment, never to clear; the default environment is refused", () => {
    expect(checkExpires("7d", "pr-42", "preview")).toBe(7 * 86_400_000);
    expect(checkExpires("never", "pr-42", "preview")).toBeNull();
    const onDefault = refusal(() => checkExpires("7d", "preview", "preview"));
    expect(onDefault.exitCode).toBe(2);
    expect(onDefault.message).toMatch(/not preview, the default one/);
    const bad = refusal(() => checkExpires("7 days", "pr-42", "preview"));
    expect(bad.message).toBe("--expires 7 days: not a duration");
    expect(bad.details.join("\n")).toMatch(/hint: .*90m, 12h, 7d or 2w/);
  });
});
