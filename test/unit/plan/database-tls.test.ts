import { describe, expect, it } from "vitest";
import { validateConfig } from "../../../src/config/index.js";
import { buildPlan, postgresCommand } from "../../../src/plan/build-plan.js";
import { buildPlanReport } from "../../../src/plan/plan-report.js";
import type { TemplatePart } from "../../../src/config/index.js";
import { CTX, FULLSTACK, fullstackPlan } from "../../fixtures/plans.js";

const text = (parts: readonly TemplatePart[] | undefined) =>
  parts?.map((p) => (p.kind === "text" ? p.text : `\${${p.service}.${p.property}}`)).join("");

function planOf(yaml: string) {
  const r = validateConfig(yaml, { file: "platform.yml", projectDir: FULLSTACK });
  if (!r.config) throw new Error(JSON.stringify(r.errors));
  return buildPlan(r.config, CTX, new Map());
}

describe("the managed Postgres serves TLS", () => {
  it("the database runs with ssl=on and the stack's certificate, owned by its postgres user", async () => {
    const db = (await fullstackPlan()).services.find((s) => s.name === "database")!;
    expect(db.database?.tls).toEqual({
      certFile: "/etc/platform/tls/server.crt",
      keyFile: "/etc/platform/tls/server.key",
      owner: "postgres",
    });
    expect(db.command).toEqual([
      "postgres",
      "-c",
      "ssl=on",
      "-c",
      "ssl_cert_file=/etc/platform/tls/server.crt",
      "-c",
      "ssl_key_file=/etc/platform/tls/server.key",
    ]);
    expect(postgresCommand(db.database!.tls)).toEqual(db.command);
    // The database itself gets no CA variables.
    expect(db.databaseCaFile).toBeUndefined();
    expect(db.env.PGSSLROOTCERT).toBeUndefined();
  });

  it("a service that references a database trusts the stack's CA through PGSSLROOTCERT and NODE_EXTRA_CA_CERTS; ${database.url} is unchanged", async () => {
    const plan = await fullstackPlan();
    const api = plan.services.find((s) => s.name === "api")!;
    expect(api.databaseCaFile).toBe("/etc/platform/tls/ca.crt");
    expect(text(api.env.PGSSLROOTCERT)).toBe("/etc/platform/tls/ca.crt");
    expect(text(api.env.NODE_EXTRA_CA_CERTS)).toBe("/etc/platform/tls/ca.crt");
    expect(text(api.env.DATABASE_URL)).toBe("${database.url}");
    // web references only the API: nothing changes for it.
    const web = plan.services.find((s) => s.name === "web")!;
    expect(web.databaseCaFile).toBeUndefined();
    expect(web.env.PGSSLROOTCERT).toBeUndefined();
    expect(web.env.NODE_EXTRA_CA_CERTS).toBeUndefined();
  });

  it("any property of a database counts (host, password...), and platform.yml's own values win", () => {
    const plan = planOf(`version: "1.0"
name: shop
services:
  db:
    type: postgres
  worker:
    type: fastapi
    build: { source: ./api, dockerfile: Dockerfile }
    env:
      PGHOST: \${db.host}
      NODE_EXTRA_CA_CERTS: /etc/ssl/company.pem
`);
    const worker = plan.services.find((s) => s.name === "worker")!;
    expect(worker.databaseCaFile).toBe("/etc/platform/tls/ca.crt");
    expect(text(worker.env.PGSSLROOTCERT)).toBe("/etc/platform/tls/ca.crt");
    expect(text(worker.env.NODE_EXTRA_CA_CERTS)).toBe("/etc/ssl/company.pem");
    // Platform variables are run-time only: a build sees platform.yml's names alone.
    expect(worker.buildEnv).toEqual(["PGHOST", "NODE_EXTRA_CA_CERTS"]);
  });

  it("platform plan says so: the database's TLS, and where a service finds the CA", async () => {
    const report = buildPlanReport(await fullstackPlan(), FULLSTACK, () => "", new Set());
    const details = (name: string) => report.services.find((s) => s.name === name)?.details;
    expect(details("database")).toContain("tls: ssl=on, a certificate from the stack's own CA; plain connections accepted too");
    expect(details("api")).toContain("db CA: /etc/platform/tls/ca.crt (PGSSLROOTCERT, NODE_EXTRA_CA_CERTS), for sslmode=verify-full");
    expect(details("web")?.some((d) => d.startsWith("db CA"))).toBe(false);
  });
});
