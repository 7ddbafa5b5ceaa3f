import { execFileSync, spawn, spawnSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseImages } from "../../src/home/images.js";
import { httpsRequest, ok, parseUrls, runCli } from "./helpers/cli.js";
import {
  CLI,
  ROOT,
  forgetProject,
  freshBackend,
  pulumiEnv,
  removeProjectImages,
  requireToolchain,
  serviceContainers,
  unique,
} from "./helpers/env.js";
import { expectFolderWithFiles } from "./helpers/leaks.js";

/**
 * Issue #25, TLS to the database, end to end on the real engine: an app written for a hosted
 * Postgres (test/fixtures/apps/db-tls: `${database.url}?sslmode=require`) deployed with nothing
 * but its platform.yml answers 200 with a query made over TLS (psycopg and asyncpg); with the CA
 * the platform puts in the app (PGSSLROOTCERT) verify-full works, and plain connections still
 * do. From test containers on the stack's network: psql with verify-full (and its refusals for
 * another CA or a name the certificate lacks), Node's pg with sslmode=require through
 * NODE_EXTRA_CA_CERTS. The private key is nowhere but in the database's container and the
 * encrypted state; a certificate near its end is renewed by the next deploy.
 */
const project = unique("dbtls");
const backend = freshBackend();
const dir = join(mkdtempSync(join(tmpdir(), "platform-dbtls-")), "app");
const work = mkdtempSync(join(tmpdir(), "platform-dbtls-work-"));
const cli = (...args: string[]) => runCli(args, { cwd: dir, env: backend });
const deploy = () => cli("deploy", "--yes", "--project", project);
const home = process.env.PLATFORM_HOME ?? join(process.env.HOME as string, ".platform");
const workspace = join(home, "projects", project);
let api = "";
let edgeCa = "";
const CA_IN_APP = "/etc/platform/tls/ca.crt";

const containerOf = (service: string) => serviceContainers(project, service);
const docker = (...args: string[]) => spawnSync("docker", args, { encoding: "utf8", timeout: 120_000 });
const inspect = (name: string, format: string) => execFileSync("docker", ["inspect", "-f", format, name], { encoding: "utf8" }).trim();

async function query(path: string): Promise<Record<string, unknown>> {
  const r = await httpsRequest(`${api}${path}`, edgeCa, { timeoutMs: 30_000 });
  expect(r.status, `${path}: ${r.body}`).toBe(200);
  return JSON.parse(r.body);
}

/** The stack's network, the database's image and its connection string (from the app's own variables). */
function stackFacts(): { network: string; image: string; url: URL } {
  const db = containerOf("database");
  return {
    network: inspect(db, "{{range $k, $v := .NetworkSettings.Networks}}{{$k}}{{end}}"),
    image: inspect(db, "{{.Config.Image}}"),
    url: new URL(execFileSync("docker", ["exec", containerOf("api"), "printenv", "DATABASE_URL"], { encoding: "utf8" }).trim()),
  };
}

/** psql in a container of the database's image on the stack's network; the CA file mounted at /ca.crt. */
function psql(caFile: string, host: string, sslmode: string): ReturnType<typeof docker> {
  const { network, image, url } = stackFacts();
  const conninfo = `host=${host} port=5432 user=${url.username} dbname=app sslmode=${sslmode} sslrootcert=/ca.crt connect_timeout=10`;
  return docker(
    ...["run", "--rm", "--network", network, "-v", `${caFile}:/ca.crt:ro`, "-e", `PGPASSWORD=${url.password}`, "--entrypoint", "psql"],
    ...[image, conninfo, "-tAc", "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"],
  );
}

describe("TLS to the managed Postgres (Docker)", () => {
  beforeAll(() => {
    requireToolchain();
    cpSync(join(ROOT, "test", "fixtures", "apps", "db-tls"), dir, { recursive: true });
  });

  afterAll(async () => {
    await cli("destroy", "--yes", "--delete-data", "--project", project);
    removeProjectImages(project);
    rmSync(join(dir, ".."), { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
    forgetProject(project);
  });

  it("deploys an app whose DATABASE_URL asks for sslmode=require; it answers 200 with a query made over TLS", async () => {
    const r = ok(await deploy());
    api = parseUrls(r.stdout).api as string;
    expect(api).toMatch(/^https:\/\//);
    edgeCa = ok(await cli("ca")).stdout;
    const answer = await query("/query");
    expect(answer).toMatchObject({ driver: "psycopg", sslmode: "sslmode=require", answer: 42, ssl: true });
    expect(answer.tls_version).toMatch(/^TLSv1\.[23]$/);
    expect(await query("/asyncpg")).toMatchObject({ driver: "asyncpg", answer: 42, ssl: true });
  }, 900_000);

  it("${database.url} is as it was; the app has the stack's CA where PGSSLROOTCERT and NODE_EXTRA_CA_CERTS say", async () => {
    const { url } = stackFacts();
    expect(`${url.protocol}//${url.host}${url.pathname}`).toBe("postgresql://database:5432/app");
    expect(url.search).toBe("?sslmode=require");
    const env = execFileSync("docker", ["exec", containerOf("api"), "env"], { encoding: "utf8" });
    expect(env).toContain(`PGSSLROOTCERT=${CA_IN_APP}`);
    expect(env).toContain(`NODE_EXTRA_CA_CERTS=${CA_IN_APP}`);
    const ca = new X509Certificate(execFileSync("docker", ["exec", containerOf("api"), "cat", CA_IN_APP]));
    expect(ca.ca).toBe(true);
    expect(ca.subject).toContain(`platform ${project}/preview databases`);
    // The server's certificate chains to it and names the service's host.
    const server = new X509Certificate(execFileSync("docker", ["exec", containerOf("database"), "cat", "/etc/platform/tls/server.crt"]));
    expect(server.checkIssued(ca) && server.verify(ca.publicKey)).toBe(true);
    expect(server.checkHost("database")).toBe("database");
    writeFileSync(join(work, "ca.crt"), ca.toString());
    writeFileSync(join(work, "edge-ca.crt"), edgeCa);
  });

  it("verify-full works in the app with the platform's CA (psycopg, asyncpg); plain connections still work", async () => {
    expect(await query("/query?sslmode=verify-full")).toMatchObject({ answer: 42, ssl: true, sslmode: "sslmode=verify-full" });
    expect(await query("/asyncpg?sslmode=verify-full")).toMatchObject({ answer: 42, ssl: true });
    expect(await query("/query?sslmode=disable")).toMatchObject({ answer: 42, ssl: false });
    expect(await query("/asyncpg?sslmode=disable")).toMatchObject({ answer: 42, ssl: false });
  });

  it("psql on the stack's network: verify-full with the platform's CA; refused with another CA or a name the certificate lacks", () => {
    const good = psql(join(work, "ca.crt"), "database", "verify-full");
    expect(good.status, good.stderr).toBe(0);
    expect(good.stdout.trim()).toBe("t");
    const otherCa = psql(join(work, "edge-ca.crt"), "database", "verify-full");
    expect(otherCa.status).not.toBe(0);
    expect(otherCa.stderr).toMatch(/certificate verify failed/);
    // Docker's DNS also knows the container by its name, which the certificate does not carry.
    const otherName = psql(join(work, "ca.crt"), containerOf("database"), "verify-full");
    expect(otherName.status).not.toBe(0);
    expect(otherName.stderr).toMatch(/does not match host name/);
    const plain = psql(join(work, "ca.crt"), "database", "disable");
    expect(plain.status, plain.stderr).toBe(0);
    expect(plain.stdout.trim()).toBe("f");
  }, 180_000);

  it("Node's pg (which takes sslmode=require as verify-full) connects with the app's NODE_EXTRA_CA_CERTS, and fails without it", () => {
    const script = join(work, "pg-check.cjs");
    writeFileSync(
      script,
      `const { Client } = require("pg");
const c = new Client({ connectionString: process.env.DATABASE_URL });
c.connect()
  .then(() => c.query("SELECT 6 * 7 AS answer, ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"))
  .then((r) => { console.log(JSON.stringify(r.rows[0])); return c.end(); })
  .catch((e) => { console.log(JSON.stringify({ error: e.message })); process.exitCode = 1; });
`,
    );
    const { network, url } = stackFacts();
    const node = (extra: string[]) =>
      docker(
        ...["run", "--rm", "--network", network, "-v", `${join(ROOT, "node_modules")}:/nm:ro`, "-v", `${script}:/check.cjs:ro`],
        ...[
          "-v",
          `${join(work, "ca.crt")}:${CA_IN_APP}:ro`,
          "-e",
          "NODE_PATH=/nm",
          "-e",
          `DATABASE_URL=${url.href}`,
          "-e",
          "NODE_NO_WARNINGS=1",
        ],
        ...[...extra, baseImages().node, "node", "/check.cjs"],
      );
    const withCa = node(["-e", `NODE_EXTRA_CA_CERTS=${CA_IN_APP}`]);
    expect(withCa.status, withCa.stdout + withCa.stderr).toBe(0);
    expect(JSON.parse(withCa.stdout)).toEqual({ answer: 42, ssl: true });
    const withoutCa = node([]);
    expect(withoutCa.status).not.toBe(0);
    expect(JSON.parse(withoutCa.stdout).error).toMatch(/certificate/);
  }, 180_000);

  it("through `platform db connect --tunnel-only` on 127.0.0.1, psql on this machine verifies the certificate too", async () => {
    const child = spawn(process.execPath, [CLI, "db", "connect", "database", "--tunnel-only", "--json", "--project", project], {
      cwd: dir,
      env: { ...process.env, ...backend, CI: "true" },
    });
    try {
      const tunnel = await new Promise<{ host: string; port: number }>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d) => {
          out += d;
          const line = out.split("\n").find((l) => l.startsWith("{"));
          if (line) resolve(JSON.parse(line));
        });
        child.on("close", (code) => reject(new Error(`db connect exited ${code}: ${out}`)));
      });
      expect(tunnel.host).toBe("127.0.0.1");
      const conninfo = `host=127.0.0.1 port=${tunnel.port} user=app dbname=app sslmode=verify-full sslrootcert=${join(work, "ca.crt")} connect_timeout=10`;
      const r = spawnSync("psql", [conninfo, "-tAc", "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"], {
        encoding: "utf8",
        env: { ...process.env, PGPASSWORD: stackFacts().url.password },
        timeout: 60_000,
      });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout.trim()).toBe("t");
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const closed = new Promise((r) => child.once("close", r));
        child.kill("SIGINT");
        await closed;
      }
    }
  }, 180_000);

  it("the private key is in the database's container only: not in the app, the images, the output, the logs or the state in clear", async () => {
    const key = execFileSync("docker", ["exec", containerOf("database"), "cat", "/etc/platform/tls/server.key"], { encoding: "utf8" });
    expect(key).toContain("BEGIN PRIVATE KEY");
    const body = key.split("\n")[1] as string;
    // Owned by postgres, readable by nobody else (the server refuses anything looser).
    expect(
      execFileSync("docker", ["exec", containerOf("database"), "stat", "-c", "%U %a", "/etc/platform/tls/server.key"], {
        encoding: "utf8",
      }).trim(),
    ).toBe("postgres 600");
    expect(docker("exec", containerOf("api"), "ls", "/etc/platform/tls").stdout.trim()).toBe("ca.crt");
    expect(inspect(containerOf("database"), "{{json .Config}}")).not.toContain(body);
    const dbImage = stackFacts().image;
    const history = execFileSync("docker", ["history", "--no-trunc", dbImage], { encoding: "utf8" });
    expect(history).not.toContain(body);
    const grep = (d: string) => {
      expectFolderWithFiles(d);
      const r = spawnSync("grep", ["-rlF", "--", body, d], { encoding: "utf8" });
      if (r.status === 0 || r.status === 1) return r.stdout;
      throw new Error(`grep -r in ${d} failed (exit ${r.status ?? r.signal}): ${r.stderr}`);
    };
    expect(grep(backend.PLATFORM_BACKEND_URL?.replace("file://", "") as string)).toBe("");
    expect(grep(join(home, "logs", project))).toBe("");
    expect(grep(workspace)).toBe("");
    expect(ok(await cli("status", "--project", project, "--json")).stdout).not.toContain(body);
  }, 120_000);

  it("an unchanged redeploy keeps the certificate and the database; one near its end is renewed, and verify-full still works", async () => {
    const db = containerOf("database");
    const cert = () =>
      execFileSync("docker", ["exec", containerOf("database"), "cat", "/etc/platform/tls/server.crt"], { encoding: "utf8" });
    const before = cert();
    const again = ok(await deploy());
    expect(again.stdout).toContain("database: unchanged");
    expect(containerOf("database")).toBe(db);
    // Move the stored end of the server certificate into its renewal window (30 days from now).
    const pulumi = requireToolchain().pulumi;
    const pulumiArgs = ["--stack", "preview", "--non-interactive", "--cwd", workspace];
    const state = JSON.parse(execFileSync(pulumi, ["stack", "export", ...pulumiArgs], { env: pulumiEnv(backend), encoding: "utf8" }));
    const res = state.deployment.resources.find((r: { type: string }) => r.type === "platform:tls:ServerCertificate");
    expect(res?.outputs?.notAfter).toMatch(/^\d{4}-/);
    res.outputs.notAfter = new Date(Date.now() + 30 * 86_400_000).toISOString();
    writeFileSync(join(work, "state.json"), JSON.stringify(state));
    execFileSync(pulumi, ["stack", "import", "--file", join(work, "state.json"), ...pulumiArgs], { env: pulumiEnv(backend) });
    const renewed = ok(await deploy());
    expect(renewed.stdout).toContain("database: healthy");
    // A new database server: the API that connects to it is replaced after it, so that no
    // pooled connection to the old server is left (provider/docker/container.ts, databases).
    expect(renewed.stdout).toContain("api: healthy");
    const after = cert();
    expect(after).not.toBe(before);
    const next = new X509Certificate(after);
    expect(Date.parse(next.validTo) - Date.now()).toBeGreaterThan(800 * 86_400_000);
    expect(next.checkIssued(new X509Certificate(readFileSync(join(work, "ca.crt"))))).toBe(true);
    expect(await query("/query?sslmode=verify-full")).toMatchObject({ answer: 42, ssl: true });
  }, 600_000);
});
