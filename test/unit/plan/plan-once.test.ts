import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { planOnce } from "../../../src/plan/plan-once.js";
import type { Plan, PlanContext } from "../../../src/plan/types.js";
import { tempDir } from "../../fixtures/temp-home.js";

const settings = (httpsPort: number) =>
  ({ project: "p", env: "preview", projectDir: "/x", appsDomain: "localhost", httpsPort }) as unknown as PlanContext;
const counted = () => {
  let built = 0;
  return {
    build: async () => {
      built++;
      return { project: `plan ${built}` } as unknown as Plan;
    },
    built: () => built,
  };
};

describe("one plan per process for one platform.yml text and one set of settings (plan/plan-once.ts)", () => {
  it("builds once for the same file text and settings, again when either changes", async () => {
    const file = join(tempDir("plan-once-"), "platform.yml");
    writeFileSync(file, "version: 1\n");
    const c = counted();
    const first = await planOnce(file, settings(443), c.build);
    expect(await planOnce(file, settings(443), c.build)).toBe(first);
    expect(c.built()).toBe(1);
    await planOnce(file, settings(8443), c.build);
    expect(c.built()).toBe(2);
    writeFileSync(file, "version: 1\n# changed\n");
    const changed = await planOnce(file, settings(443), c.build);
    expect(changed).not.toBe(first);
    expect(c.built()).toBe(3);
  });

  it("keeps no failed plan: the next call builds again", async () => {
    const file = join(tempDir("plan-once-"), "platform.yml");
    writeFileSync(file, "version: 1\n");
    await expect(planOnce(file, settings(443), async () => Promise.reject(new Error("invalid")))).rejects.toThrow("invalid");
    const c = counted();
    await planOnce(file, settings(443), c.build);
    expect(c.built()).toBe(1);
  });
});
