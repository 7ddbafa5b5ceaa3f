import { describe, expect, it } from "vitest";
import type { Plan, PlannedService } from "../../../../src/plan/types.js";
import { referenceValues } from "../../../../src/targets/shared/references.js";

const plan = { appsDomain: "localhost", httpsPort: 443 } as Plan;
const redis = (passwordless: boolean) =>
  ({
    name: "cache",
    type: "redis",
    port: 6379,
    public: false,
    domains: [],
    hostPrefix: "shop-cache",
    redis: { volumeName: "v", retain: true, dataPath: "/data", ...(passwordless ? { passwordless: true } : {}) },
  }) as unknown as PlannedService;

describe("a redis service's references", () => {
  it("auth: none: a url without a password, host and port, and no password", () => {
    expect(referenceValues(redis(true), plan, "cache", undefined, undefined)).toEqual({
      url: "redis://cache:6379/0",
      host: "cache",
      port: "6379",
    });
  });
});
