import { describe, expect, it } from "vitest";
import { buildPlan } from "../../../src/plan/build-plan.js";
import { buildPlanReport } from "../../../src/plan/plan-report.js";
import { all, brief, check, expectDiagnostic, PROJECT, y } from "./helpers.js";

const BASE = y`
  version: "1.0"
  name: shop
  services:
    cache:
      type: redis
    api:
      type: fastapi
      build: {source: ./api}
      public: true
      depends_on: [cache]
      env:
        REDIS_URL: \${cache.url}
        REDIS_HOST: \${cache.host}
        REDIS_PORT: \${cache.port}
        REDIS_PASSWORD: \${cache.password}
`;

describe("type: redis in platform.yml", () => {
  it("is valid with its url and parts, and warning-free", () => {
    const r = check(BASE);
    expect(all(r).map(brief)).toEqual([]);
    expect(r.config?.services.cache?.resources).toMatchObject({ storage: "1Gi", retention: "permanent" });
  });

  it.each([
    ["source", "    source: ./api\n", "a redis service takes no source: the platform runs Redis for you"],
    ["start", "    start: redis-server\n", "a redis service takes no start command: the platform runs Redis for you"],
    ["health", "    health: {http: /}\n", "a redis service takes no health check: the platform checks the server itself"],
    ["public", "    public: true\n", "a redis service is never put on the public HTTPS edge"],
  ])("refuses %s", (key, line, message) => {
    const r = check(BASE.replace("    type: redis\n", `    type: redis\n${line}`));
    const d = all(r).find((x) => x.path === `services.cache.${key}`);
    expect(d?.message).toBe(message);
    expect(d?.line).toBe(6);
  });

  it("offers url, host, port and password, with did-you-mean for others", () => {
    const r = check(BASE.replace("${cache.port}", "${cache.pasword}"));
    expectDiagnostic(
      r,
      '14:19 unknown-property unknown property "pasword" in ${cache.pasword} (did you mean "password"?)',
      "${cache.password}",
    );
    const u = check(BASE.replace("${cache.port}", "${cache.user}"));
    expect(all(u).map(brief).join("\n")).toContain('unknown property "user" in ${cache.user}');
  });

  it("suggests redis for a misspelt type", () => {
    const r = check(BASE.replace("type: redis", "type: rediss"));
    expect(
      all(r)
        .map((d) => d.message)
        .join("\n"),
    ).toMatch(/did you mean "redis"\?/);
  });

  it("takes auth: none, only on a redis service, and then has no password to refer to", () => {
    const none = BASE.replace("    type: redis\n", "    type: redis\n    auth: none\n");
    expect(all(check(none.replace(/ +REDIS_PASSWORD: .*\n/, ""))).map(brief)).toEqual([]);
    expect(all(check(none)).map(brief)).toContain(
      "16:23 redis-no-password cache has auth: none: it has no password, so ${cache.password} has no value",
    );
    const onApi = BASE.replace("    public: true\n", "    public: true\n    auth: none\n");
    expect(all(check(onApi)).map(brief)).toContain("10:5 auth-redis-only auth is only for redis services; api is a fastapi service");
    expect(
      all(check(BASE.replace("    type: redis\n", "    type: redis\n    auth: nope\n")))
        .map(brief)
        .join("\n"),
    ).toMatch(/6:11 invalid-value unknown value "nope"/);
  });

  it("warns when nothing refers to it", () => {
    const r = check(BASE.replace(/ {4}env:\n(.*\n){4}/, ""));
    expect(all(r).map(brief)).toContain("4:3 unused-database no service refers to this Redis (${cache.url})");
  });
});

describe("a redis service in the plan", () => {
  const images = { python: "p", node: "n", postgres: "pg", caddy: "c", redis: "platform-local/redis:7.0" };
  const ctx = { project: "shop", env: "preview", appsDomain: "localhost", httpsPort: 443, projectDir: PROJECT, images };

  it("runs the platform's image on a retained volume, stop-first, checked with redis-cli ping", () => {
    const config = check(BASE).config!;
    const plan = buildPlan(config, ctx, new Map());
    expect(plan.services.map((s) => s.name)).toEqual(["cache", "api"]);
    const cache = plan.services[0]!;
    expect(cache).toMatchObject({
      type: "redis",
      image: "platform-local/redis:7.0",
      port: 6379,
      public: false,
      stopFirst: true,
      redis: { volumeName: "shop_preview_cache_data", retain: true, dataPath: "/data" },
      health: { kind: "exec" },
    });
    expect(cache.health.kind === "exec" && cache.health.command.join(" ")).toContain("redis-cli -h 127.0.0.1 ping");
    expect(cache.env.REDIS_PASSWORD).toEqual([{ kind: "ref", service: "cache", property: "password" }]);
    expect(cache.env.REDISCLI_AUTH).toEqual(cache.env.REDIS_PASSWORD);
    expect(cache.build).toBeUndefined();
  });

  it("auth: none: the server's password cleared on its command line, redis-cli given none, and plan says so", () => {
    const config = check(BASE.replace("    type: redis\n", "    type: redis\n    auth: none\n").replace(/ +REDIS_PASSWORD: .*\n/, ""))
      .config!;
    const cache = buildPlan(config, ctx, new Map()).services[0]!;
    expect(cache.redis?.passwordless).toBe(true);
    expect(cache.command).toEqual(["redis-server", "--requirepass", ""]);
    expect(cache.env.REDISCLI_AUTH).toBeUndefined();
    // The image's entrypoint requires one: a placeholder, then overridden (no reference to a password it has not).
    expect(cache.env.REDIS_PASSWORD).toEqual([{ kind: "text", text: "none" }]);
    const report = buildPlanReport(buildPlan(config, ctx, new Map()), PROJECT, () => "", new Set());
    expect(report.services[0]?.details.join("\n")).toContain("no password (auth: none): any container on the stack's network may use it");
  });

  it("keeps retention: delete and falls back to the public image without a local one", () => {
    const config = check(BASE.replace("    type: redis\n", "    type: redis\n    resources: {retention: delete}\n")).config!;
    const { redis: _, ...noRedis } = images;
    const cache = buildPlan(config, { ...ctx, images: noRedis }, new Map()).services[0]!;
    expect(cache.redis?.retain).toBe(false);
    expect(cache.image).toBe("redis:7");
  });
});
