import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { validateConfig } from "../../../src/config/index.js";
import { planBaseImages } from "../../../src/plan/base-images.js";
import { buildPlan } from "../../../src/plan/build-plan.js";
import { orderByDependencies } from "../../../src/plan/graph.js";
import { scanSource, type SourceSnapshot } from "../../../src/plan/recipes/index.js";
import type { PlanContext } from "../../../src/plan/types.js";
import { CTX, FULLSTACK, fullstackPlan } from "../../fixtures/plans.js";

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

describe("postgres version:", () => {
  const plan = async (version: string | undefined, images: Partial<PlanContext["images"]> = {}) => {
    const r = validateConfig(
      readFileSync(join(FULLSTACK, "platform.yml"), "utf8").replace(
        "    type: postgres\n",
        `    type: postgres\n${version ? `    version: ${version}\n` : ""}`,
      ),
      {
        file: "platform.yml",
        projectDir: FULLSTACK,
      },
    );
    if (!r.config) throw new Error(JSON.stringify(r.errors));
    const sources = new Map<string, SourceSnapshot>([["web", await scanSource(join(FULLSTACK, "web"))]]);
    const p = buildPlan(r.config, { ...CTX, images: { ...CTX.images, ...images } }, sources);
    const db = p.services.find((s) => s.name === "database")!;
    const pgdata = db.env.PGDATA?.map((part) => (part.kind === "text" ? part.text : "?")).join("");
    return { image: db.image, pgdata, version: db.database?.version, base: planBaseImages(p) };
  };
  const catalogue = {
    postgresVersions: {
      "15": "platform-local/postgres:15",
      "17": "platform-local/postgres:17-abc",
      "18": "platform-local/postgres:18-def",
    },
  };

  it("the default major is the set's postgres image, its cluster the volume's root", async () => {
    expect(await plan(undefined, catalogue)).toMatchObject({ image: "platform-local/postgres:15", pgdata: "/var/lib/postgresql/data" });
    expect(await plan("15", catalogue)).toMatchObject({
      image: "platform-local/postgres:15",
      pgdata: "/var/lib/postgresql/data",
      version: "15",
    });
  });

  it("another major is the catalogue's image (a base image of the plan, built on first need), its cluster in pg<major>/", async () => {
    const p = await plan("17", catalogue);
    expect(p).toMatchObject({ image: "platform-local/postgres:17-abc", pgdata: "/var/lib/postgresql/data/pg17", version: "17" });
    expect(p.base).toContain("platform-local/postgres:17-abc");
  });

  it("public images name the major's tag; a team's own image stays theirs", async () => {
    expect((await plan("18", { postgres: "postgres:17" })).image).toBe("postgres:18");
    expect((await plan("18", { postgres: "registry.example.com/pg:custom" })).image).toBe("registry.example.com/pg:custom");
  });
});
