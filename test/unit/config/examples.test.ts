import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig, type Config } from "../../../src/config/index.js";
import { REFERENCE_SECTIONS } from "../../../src/config/reference-text.js";
import { check } from "./helpers.js";

/** Every example is also a test: the spec's two examples, the repository's, and README's. */

// From the repository's root, whatever directory the tests run from.
const ROOT = resolve(import.meta.dirname, "..", "..", "..");
const FIXTURES = join(ROOT, "test", "fixtures", "config");
const EXAMPLES = join(ROOT, "examples");
const small = { preset: "small", cpus: 0.5, memoryBytes: 512 * 1024 ** 2, pidsLimit: 512 } as const;

const fullstack: Config = {
  version: "1.0",
  name: "fullstack",
  description: "PostgreSQL, a FastAPI API with migrations, and a server-rendered Next.js frontend",
  services: {
    database: {
      name: "database",
      type: "postgres",
      public: false,
      domains: [],
      env: {},
      depends_on: [],
      resources: { ...small, storage: "10Gi", storageWritten: true, storageBytes: 10 * 1024 ** 3, retention: "permanent" },
    },
    api: {
      name: "api",
      type: "fastapi",
      public: true,
      domains: [],
      env: { DATABASE_URL: "${database.url}", CORS_ORIGINS: "${web.external_url}" },
      depends_on: ["database"],
      resources: { ...small },
      build: { source: "./api", dockerfile: "Dockerfile" },
      health: { http: "/health" },
      migrate: { command: ["alembic", "upgrade", "head"], on_failure: "abort", timeoutSeconds: 300 },
    },
    web: {
      name: "web",
      type: "nextjs",
      public: true,
      domains: [],
      env: { API_URL: "${api.url}" },
      depends_on: ["api"],
      resources: { ...small },
      source: "./web",
    },
  },
  telemetry: { sampleRatio: 1 },
};

describe("the spec's examples", () => {
  it("fullstack: valid, no warnings, normalized with every default", async () => {
    const r = await loadConfig(join(FIXTURES, "fullstack", "platform.yml"));
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
    expect(r.config).toEqual(fullstack);
    expect(Object.keys(r.config!.services)).toEqual(["database", "api", "web"]);
  });

  it("catalog: valid, no warnings", async () => {
    const r = await loadConfig(join(FIXTURES, "catalog", "platform.yml"));
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
    expect(Object.keys(r.config!.services)).toEqual(["api", "traffic"]);
    expect(r.config!.services.traffic).toMatchObject({ env: { API_URL: "${api.url}" }, depends_on: ["api"], source: "./traffic" });
  });

  it("README's example is valid and warning-free", () => {
    const yaml = /```yaml\n([\s\S]*?)```/.exec(REFERENCE_SECTIONS.intro)![1]!;
    const r = check(yaml);
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
  });
});

describe("the repository's examples", () => {
  const dirs = readdirSync(EXAMPLES).filter((d) => existsSync(join(EXAMPLES, d, "platform.yml")));
  // Found, not assumed: an empty list would make no test below, and nothing would fail.
  it("are found", () => {
    expect(dirs).toEqual(expect.arrayContaining(["catalog", "fullstack", "worker"]));
  });
  it.each(dirs)("examples/%s/platform.yml is valid", async (d) => {
    const r = await loadConfig(join(EXAMPLES, d, "platform.yml"));
    expect(r.errors).toEqual([]);
  });
});
