import { describe, expect, it } from "vitest";
import { buildPlan } from "../../../src/plan/build-plan.js";
import { all, brief, check, y } from "./helpers.js";

const BASE = y`
  version: "1.0"
  name: shop
  services:
    db:
      type: postgres
    api:
      type: fastapi
      build: {source: ./api}
      public: true
      replicas: 3
      depends_on: [db]
      env:
        DATABASE_URL: \${db.url}
`;

describe("replicas: in platform.yml", () => {
  it("is valid on an app service and reaches the plan; one copy leaves the plan as it was", () => {
    const r = check(BASE);
    expect(all(r).map(brief)).toEqual([]);
    expect(r.config?.services.api?.replicas).toBe(3);
    const images = { python: "p", node: "n", postgres: "pg", caddy: "c" };
    const ctx = { project: "shop", env: "preview", appsDomain: "localhost", httpsPort: 443, projectDir: "/proj", images };
    expect(buildPlan(r.config!, ctx, new Map()).services.find((s) => s.name === "api")?.replicas).toBe(3);
    const one = check(BASE.replace("replicas: 3", "replicas: 1")).config!;
    expect(one.services.api?.replicas).toBeUndefined();
    expect(buildPlan(one, ctx, new Map()).services.find((s) => s.name === "api")).not.toHaveProperty("replicas");
  });

  it("refuses replicas on a database, where it is written", () => {
    const r = check(BASE.replace("    type: postgres\n", "    type: postgres\n    replicas: 2\n"));
    expect(all(r).map(brief), JSON.stringify(all(r).map(brief))).toContain(
      "6:5 data-replicas a postgres service runs one server on its volume: it takes no replicas",
    );
  });

  it.each([
    ["0", "is 0; it must be at least 1"],
    ["21", "is 21; it must be at most 20"],
    ["1.5", "must be a whole number"],
    ['"3"', "number"],
  ])("refuses replicas: %s", (value, what) => {
    const r = check(BASE.replace("replicas: 3", `replicas: ${value}`));
    const d = all(r).find((x) => x.path === "services.api.replicas");
    expect(d?.message, JSON.stringify(all(r).map(brief))).toMatch(new RegExp(what, "i"));
    expect(d?.line).toBe(10);
  });
});
