import { describe, expect, it } from "vitest";
import { PRESETS } from "../../../src/config/index.js";
import { check } from "./helpers.js";

/** The Config later stages get: defaults applied, units as numbers, env as the text written. */

const HEAD = 'version: "1.0"\nname: shop\nservices:\n';
const svc = (name: string, body: string) => `  ${name}:\n${body.replace(/^/gm, "    ")}\n`;
const API = "type: fastapi\nsource: ./api\npublic: true";

function config(text: string) {
  const r = check(text);
  expect(r.errors).toEqual([]);
  return r.config!;
}

describe("normalized config", () => {
  it("applies the defaults of an app service", () => {
    const c = config(HEAD + svc("api", API));
    expect(c.services.api).toEqual({
      name: "api",
      type: "fastapi",
      public: true,
      domains: [],
      env: {},
      depends_on: [],
      resources: { preset: "small", ...PRESETS.small },
      source: "./api",
    });
    expect(c).not.toHaveProperty("description");
  });

  it("applies the postgres defaults: 1Gi, permanent", () => {
    const c = config(HEAD + svc("db", "type: postgres") + svc("api", `${API}\nenv:\n  DATABASE_URL: \${db.url}\ndepends_on: [db]`));
    expect(c.services.db!.resources).toEqual({
      preset: "small",
      cpus: 0.5,
      memoryBytes: 512 * 1024 ** 2,
      pidsLimit: 512,
      storage: "1Gi",
      storageWritten: false,
      storageBytes: 1024 ** 3,
      retention: "permanent",
    });
    expect(c.services.db!.public).toBe(false);
  });

  it("presets: small 0.5 CPU 512Mi 512 pids, medium 1 CPU 1Gi 1024 pids, large 2 CPU 2Gi 2048 pids", () => {
    expect(PRESETS).toEqual({
      small: { cpus: 0.5, memoryBytes: 536870912, pidsLimit: 512 },
      medium: { cpus: 1, memoryBytes: 1073741824, pidsLimit: 1024 },
      large: { cpus: 2, memoryBytes: 2147483648, pidsLimit: 2048 },
    });
    const c = config(
      HEAD + svc("api", `${API}\nresources: large`) + svc("web", "type: nextjs\nsource: ./web\npublic: true\nresources: {preset: medium}"),
    );
    expect(c.services.api!.resources).toEqual({ preset: "large", cpus: 2, memoryBytes: 2 * 1024 ** 3, pidsLimit: 2048 });
    expect(c.services.web!.resources).toEqual({ preset: "medium", cpus: 1, memoryBytes: 1024 ** 3, pidsLimit: 1024 });
  });

  it("postgres object form keeps what is given and defaults the rest", () => {
    const c = config(
      HEAD +
        svc("db", "type: postgres\nresources: {preset: large, retention: delete}") +
        svc("api", `${API}\nenv:\n  D: \${db.url}\ndepends_on: [db]`),
    );
    expect(c.services.db!.resources).toEqual({
      preset: "large",
      cpus: 2,
      memoryBytes: 2 * 1024 ** 3,
      pidsLimit: 2048,
      storage: "1Gi",
      storageWritten: false,
      storageBytes: 1024 ** 3,
      retention: "delete",
    });
  });

  it("storage units: Mi, Gi, Ti to bytes", () => {
    for (const [text, bytes] of [
      ["64Mi", 64 * 1024 ** 2],
      ["10Gi", 10 * 1024 ** 3],
      ["16Ti", 16 * 1024 ** 4],
    ] as const) {
      const c = config(
        HEAD + svc("db", `type: postgres\nresources: {storage: ${text}}`) + svc("api", `${API}\nenv:\n  D: \${db.url}\ndepends_on: [db]`),
      );
      expect(c.services.db!.resources.storageBytes).toBe(bytes);
    }
  });

  it("env numbers and booleans become the text written, with no warning", () => {
    const env = "env:\n  A: 8000\n  B: true\n  C: 1.10\n  D: 0x1F\n  E: 1e3\n  F: '007'\n  G: False\n  H: ''\n  I: -0";
    const r = check(HEAD + svc("api", `${API}\n${env}`));
    expect(r.warnings).toEqual([]);
    expect(r.config!.services.api!.env).toEqual({
      A: "8000",
      B: "true",
      C: "1.10",
      D: "0x1F",
      E: "1e3",
      F: "007",
      G: "False",
      H: "",
      I: "-0",
    });
  });

  it("migrate defaults: abort, 5m = 300 s; durations in seconds", () => {
    const c = config(
      HEAD +
        svc("api", `${API}\nlifecycle:\n  migrate:\n    command: [alembic, upgrade, head]`) +
        svc("web", "type: nextjs\nsource: ./web\npublic: true\nlifecycle: {migrate: {command: [x], timeout: 90s, on_failure: continue}}"),
    );
    expect(c.services.api!.migrate).toEqual({ command: ["alembic", "upgrade", "head"], on_failure: "abort", timeoutSeconds: 300 });
    expect(c.services.web!.migrate).toEqual({ command: ["x"], on_failure: "continue", timeoutSeconds: 90 });
    const long = config(HEAD + svc("api", `${API}\nlifecycle: {migrate: {command: [x], timeout: 24h}}`));
    expect(long.services.api!.migrate!.timeoutSeconds).toBe(86400);
  });

  it("build.dockerfile defaults to Dockerfile", () => {
    const c = config(HEAD + svc("api", "type: fastapi\nbuild: {source: ./worker}\npublic: true"));
    expect(c.services.api!.build).toEqual({ source: "./worker", dockerfile: "Dockerfile" });
  });

  it("keeps the file's service order, and drops a duplicated dependency", () => {
    const c = config(HEAD + svc("zeta", `${API}`) + svc("alpha", `${API}\ndepends_on: [zeta, zeta]`) + svc("mid", `${API}`));
    expect(Object.keys(c.services)).toEqual(["zeta", "alpha", "mid"]);
    expect(c.services.alpha!.depends_on).toEqual(["zeta"]);
  });

  it("a warning does not stop the config from being returned", () => {
    const r = check(HEAD + svc("api", `${API}\nenv:\n  OTEL_SERVICE_NAME: x`));
    expect(r.ok).toBe(true);
    expect(r.warnings).toHaveLength(1);
    expect(r.config!.services.api!.env.OTEL_SERVICE_NAME).toBe("x");
  });
});
