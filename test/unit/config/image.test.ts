import { describe, expect, it } from "vitest";
import { buildPlan } from "../../../src/plan/build-plan.js";
import { all, brief, check, PROJECT, y } from "./helpers.js";

const BASE = y`
  version: "1.0"
  name: shop
  services:
    web:
      type: fastapi
      image: ghcr.io/org/app:1.4
      start: uvicorn app:app --port $PORT
      public: true
`;

describe("image: a prebuilt image", () => {
  it("is valid instead of source or build, and planned as prebuilt with start as its command", () => {
    const r = check(BASE);
    expect(all(r).map(brief)).toEqual([]);
    const images = { python: "p", node: "n", postgres: "pg", caddy: "c" };
    const s = buildPlan(
      r.config!,
      { project: "shop", env: "preview", appsDomain: "localhost", httpsPort: 443, projectDir: PROJECT, images },
      new Map(),
    ).services[0]!;
    expect(s).toMatchObject({
      image: "ghcr.io/org/app:1.4",
      prebuilt: true,
      command: ["/bin/sh", "-c", "exec uvicorn app:app --port $PORT"],
    });
    expect(s.build).toBeUndefined();
  });

  it("is one way among source, build and image, and not for a database", () => {
    expect(
      all(check(BASE.replace("    image:", "    source: ./api\n    image:")))
        .map(brief)
        .join("\n"),
    ).toContain("source-and-build has both source and image; use one");
    const db = check(`${BASE}  db:\n    type: postgres\n    image: postgres:17\n`);
    expect(all(db).map(brief).join("\n")).toContain(
      "postgres-source a postgres service takes no image: the platform runs PostgreSQL for you",
    );
    const worker = check(BASE.replace("type: fastapi", "type: worker").replace("    public: true\n", ""));
    expect(all(worker).map(brief)).toEqual([]);
  });
});
