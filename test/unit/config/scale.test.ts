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
      scale: {min: 2, max: 5, cpu: 60}
      depends_on: [db]
      env:
        DATABASE_URL: \${db.url}
`;

const images = { python: "p", node: "n", postgres: "pg", caddy: "c" };
const ctx = { project: "shop", env: "preview", appsDomain: "localhost", httpsPort: 443, projectDir: "/proj", images };
const apiOf = (text: string) => buildPlan(check(text).config!, ctx, new Map()).services.find((s) => s.name === "api");

describe("scale: in platform.yml", () => {
  it("is valid on an app service and reaches the plan; min is the copies that run without an autoscaler", () => {
    const r = check(BASE);
    expect(all(r).map(brief)).toEqual([]);
    expect(r.config?.services.api?.scale).toEqual({ min: 2, max: 5, cpu: 60 });
    expect(r.config?.services.api?.replicas).toBe(2);
    expect(apiOf(BASE)).toMatchObject({ scale: { min: 2, max: 5, cpu: 60 }, replicas: 2 });
  });

  it("fills in min 1 and cpu 70; one copy at least leaves replicas out", () => {
    const api = apiOf(BASE.replace("{min: 2, max: 5, cpu: 60}", "{max: 3}"));
    expect(api?.scale).toEqual({ min: 1, max: 3, cpu: 70 });
    expect(api).not.toHaveProperty("replicas");
  });

  it("refuses scale on a database, where it is written", () => {
    const r = check(BASE.replace("    type: postgres\n", "    type: postgres\n    scale: {max: 2}\n"));
    expect(all(r).map(brief), JSON.stringify(all(r).map(brief))).toContain(
      "6:5 data-scale a postgres service runs one server on its volume: it takes no scale",
    );
  });

  it("refuses scale with replicas: both set the number of copies", () => {
    const r = check(BASE.replace("    scale:", "    replicas: 2\n    scale:"));
    const d = all(r).find((x) => x.code === "scale-and-replicas");
    expect(d && brief(d), JSON.stringify(all(r).map(brief))).toBe(
      "10:5 scale-and-replicas has both replicas and scale: scale sets the number of copies, from scale.min to scale.max",
    );
    expect(d?.hint).toMatch(/scale: \{min: 3, max: 3\}/);
  });

  it("refuses max below min, at max", () => {
    const r = check(BASE.replace("{min: 2, max: 5, cpu: 60}", "{min: 4, max: 2}"));
    const d = all(r).find((x) => x.path === "services.api.scale.max");
    expect(d && brief(d), JSON.stringify(all(r).map(brief))).toMatch(/^10:\d+ scale-range max 2 is below min 4$/);
  });

  it.each([
    ["{min: 0, max: 2}", "scale.min", "at least 1"],
    ["{max: 21}", "scale.max", "at most 20"],
    ["{max: 2, cpu: 0}", "scale.cpu", "at least 1"],
    ["{max: 2, cpu: 150}", "scale.cpu", "at most 100"],
    ["{max: 2.5}", "scale.max", "whole number"],
    ["{min: 2}", "scale.max", ""],
    ["{max: 2, memory: 80}", "scale", ""],
  ])("refuses scale: %s at %s", (value, where, what) => {
    const r = check(BASE.replace("{min: 2, max: 5, cpu: 60}", value));
    const d = all(r).find((x) => x.path.startsWith(`services.api.${where}`));
    expect(d?.message, JSON.stringify(all(r).map(brief))).toMatch(new RegExp(what, "i"));
    expect(d?.line).toBe(10);
  });
});
