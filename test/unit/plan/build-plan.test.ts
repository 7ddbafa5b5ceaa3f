import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { orderByDependencies } from "../../../src/plan/graph.js";
import { FULLSTACK, fullstackPlan } from "../../fixtures/plans.js";

describe("dependency order", () => {
  it.each([
    [["web", "api", "database"], { web: ["api"], api: ["database"] }, ["database", "api", "web"]],
    [["a", "b", "c"], {}, ["a", "b", "c"]],
    [["x", "y", "z"], { x: ["z"], y: ["z"] }, ["z", "x", "y"]],
  ])("%j with %j", (names, deps, order) => {
    expect(orderByDependencies(names, (n) => (deps as Record<string, string[]>)[n] ?? [])).toEqual(order);
  });
  it("fails loudly on a cycle that validation missed", () => {
    expect(() => orderByDependencies(["a", "b"], (n) => (n === "a" ? ["b"] : ["a"]))).toThrow(/cycle among: a, b/);
  });
});

describe("fullstack plan", () => {
  it("orders database, api, web and names everything from the stack", async () => {
    const plan = await fullstackPlan();
    expect(plan.network).toBe("fullstack_preview");
    expect(plan.services.map((s) => s.name)).toEqual(["database", "api", "web"]);
    expect(plan.services.map((s) => s.containerName)).toEqual([
      "fullstack_preview_database",
      "fullstack_preview_api",
      "fullstack_preview_web",
    ]);
    expect(plan.services.map((s) => s.hostPrefix)).toEqual(["fullstack-database", "fullstack-api", "fullstack-web"]);
  });

  it("makes the database a stop-first postgres on a retained volume, health-checked with pg_isready", async () => {
    const db = (await fullstackPlan()).services[0]!;
    expect(db).toMatchObject({
      type: "postgres",
      image: "platform-local/postgres:15",
      port: 5432,
      stopFirst: true,
      public: false,
      database: { user: "app", database: "app", volumeName: "fullstack_preview_database_data", retain: true },
      health: { kind: "exec", command: ["pg_isready", "-h", "127.0.0.1", "-U", "app", "-d", "app"] },
      cpus: 0.5,
      memoryBytes: 512 * 1024 * 1024,
      pidsLimit: 512,
    });
    expect(db.env.POSTGRES_PASSWORD).toEqual([{ kind: "ref", service: "database", property: "password" }]);
    expect(db.postStart?.join(" ")).toContain("ALTER ROLE CURRENT_USER PASSWORD");
  });

  it("builds the api from its Dockerfile with the base images as build args, migrates, checks /health", async () => {
    const api = (await fullstackPlan()).services[1]!;
    expect(api.build).toMatchObject({
      kind: "dockerfile",
      context: join(FULLSTACK, "api"),
      dockerfilePath: join(FULLSTACK, "api", "Dockerfile"),
    });
    expect(api.build?.buildArgs).toEqual({
      PLATFORM_PYTHON_IMAGE: "platform-local/python:3.11",
      PLATFORM_NODE_IMAGE: "platform-local/node:22",
    });
    expect(api.migrate).toEqual({ command: ["alembic", "upgrade", "head"], timeoutSeconds: 300, continueOnFailure: false });
    expect(api.health).toEqual({ kind: "http", path: "/health", port: 8080 });
    expect(api.env.PORT).toEqual([{ kind: "text", text: "8080" }]);
    expect(api.env.DATABASE_URL).toEqual([{ kind: "ref", service: "database", property: "url" }]);
    expect(api.stopFirst).toBe(false);
  });

  it("builds the web from a generated recipe; without a health path any HTTP answer counts", async () => {
    const web = (await fullstackPlan()).services[2]!;
    expect(web.build?.kind).toBe("recipe");
    expect(web.health).toEqual({ kind: "http", path: "/", port: 8080, anyStatus: true });
    expect(web.dependsOn).toEqual(["api"]);
  });
});
