import { describe, expect, it } from "vitest";
import { publicUrls } from "../../../src/engine/stack-outputs.js";
import { SYNC_PASSWORD } from "../../../src/plan/build-plan.js";

describe("what a deploy prints and runs", () => {
  it("lists URL lines in the plan's order, not the outputs' (alphabetical) order", () => {
    const out = (v: string) => ({ value: v, secret: false });
    const outputs = {
      api_external_url: out("https://a"),
      web_external_url: out("https://w"),
      admin_external_url: out("https://x"),
      database_url: out("postgresql://"),
    };
    expect(Object.keys(publicUrls(outputs, ["database", "web", "api", "admin"]))).toEqual(["web", "api", "admin"]);
  });

  it("never puts the database password in a process's arguments: psql reads it from the environment", () => {
    const script = SYNC_PASSWORD.join(" ");
    expect(script).not.toMatch(/\$\{?POSTGRES_PASSWORD/);
    expect(script).toContain("\\getenv pw POSTGRES_PASSWORD");
  });
});
