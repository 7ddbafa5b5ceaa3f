import { describe, expect, it } from "vitest";
import { jobsFromConfig } from "../../../src/data/backup-scheduler.js";

describe("scheduled backup jobs from a deployed platform.yml", () => {
  it("one job per postgres service with a valid schedule; keep when set", () => {
    const text = `
version: "1.0"
name: shop
services:
  database:
    type: postgres
    backup: {schedule: "0 3 * * *", keep: 14}
  analytics:
    type: postgres
    backup: {schedule: "30 */6 * * *"}
  nobackup:
    type: postgres
  broken:
    type: postgres
    backup: {schedule: "0 25 * * *"}
  api:
    type: fastapi
    source: ./api
    backup: {schedule: "0 3 * * *"}
`;
    expect(jobsFromConfig("shop", "preview", text)).toEqual([
      { project: "shop", env: "preview", service: "database", schedule: "0 3 * * *", keep: 14 },
      { project: "shop", env: "preview", service: "analytics", schedule: "30 */6 * * *" },
    ]);
  });

  it("nothing from a file that does not parse", () => {
    expect(jobsFromConfig("p", "e", "services: [\n")).toEqual([]);
  });
});
