import { createHash } from "node:crypto";
import { execFileSync, spawn } from "node:child_process";
import { cpSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliResult, httpsRequest, parseUrls, runCli } from "./helpers/cli.js";
import { forgetProject, freshBackend, pulumiEnv, requireToolchain, ROOT, unique, serviceContainers } from "./helpers/env.js";
import { expectFolderWithFiles } from "./helpers/leaks.js";

/**
 * Real repositories deploy as they are (one project for the whole file, test/fixtures/apps/
 * realrepos): a FastAPI app made by a factory in <package>/app.py, a bun-installed Next.js app
 * whose module throws at import without DATABASE_URL and whose browser bundle carries
 * NEXT_PUBLIC_API_URL, a `build` service reading the platform-env secret and an ARG, and a
 * secret's round trip. No build-time value may reach an image's layers, history or config, and
 * no secret may reach output, logs, records or unencrypted state.
 */
const project = unique("rr");
const backend = freshBackend();
const dir = join(mkdtempSync(join(tmpdir(), "platform-realrepos-")), "app");
const cli = (args: string[], input?: string) => runCli(args, { cwd: dir, env: backend, input });
const TOKENS = ["tok-first-7f3a9c2e51", "tok-second-b84d0e6a19"];
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const home = process.env.PLATFORM_HOME ?? join(process.env.HOME as string, ".platform");
let urls: Record<string, string> = {};
let ca = "";
let password = "";
const outputs: string[] = [];

function ok(r: CliResult): CliResult {
  outputs.push(r.stdout, r.stderr);
  if (r.code !== 0) throw new Error(`exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r;
}

function refused(r: CliResult): CliResult {
  outputs.push(r.stdout, r.stderr);
  expect(r.code, r.stdout + r.stderr).toBe(1);
  return r;
}

const images = () =>
  execFileSync("docker", ["images", "--format", "{{.Repository}}:{{.Tag}}", `platform/${project}_*`])
    .toString()
    .split("\n")
    .filter(Boolean);
const containerOf = (service: string) => serviceContainers(project, service);

/** Whether `docker save` of an image holds any of the needles (streamed: images are hundreds of MB). */
function savedImageContains(image: string, needles: string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn("docker", ["save", image]);
    const found = new Set<string>();
    const keep = Math.max(...needles.map((n) => n.length));
    let tail = Buffer.alloc(0);
    child.stdout.on("data", (chunk: Buffer) => {
      const buf = Buffer.concat([tail, chunk]);
      for (const n of needles) if (buf.includes(n)) found.add(n);
      tail = buf.subarray(Math.max(0, buf.length - keep));
    });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve([...found]) : reject(new Error(`docker save ${image} exited ${code}`))));
  });
}

/**
 * Every file under a directory whose bytes contain one of the needles. The directory must be
 * there and hold files, and one that cannot be read fails: a search of nothing finds nothing.
 */
function filesContaining(root: string, needles: string[]): string[] {
  expectFolderWithFiles(root);
  const hits: string[] = [];
  const walk = (d: string) => {
    const names = readdirSync(d);
    for (const name of names) {
      const p = join(d, name);
      // lstat: the workspace links node_modules to the platform's own (test sources live there).
      const st = lstatSync(p, { throwIfNoEntry: false });
      if (!st || st.isSymbolicLink()) continue;
      if (st.isDirectory()) walk(p);
      else if (st.isFile() && st.size < 64 * 1024 * 1024) {
        const bytes = readFileSync(p);
        if (needles.some((n) => bytes.includes(n))) hits.push(p);
      }
    }
  };
  walk(root);
  return hits;
}

async function get(service: string, path: string): Promise<{ status: number; body: string }> {
  return httpsRequest(`${urls[service]}${path}`, ca);
}

describe("real repositories, deployed as they are", () => {
  beforeAll(() => {
    requireToolchain();
    cpSync(join(ROOT, "test", "fixtures", "apps", "realrepos"), dir, { recursive: true });
  });

  afterAll(async () => {
    await cli(["destroy", "--yes", "--delete-data", "--project", project]);
    await cli(["unlink"]);
    const left = images();
    if (left.length) execFileSync("docker", ["rmi", "-f", ...left], { stdio: "ignore" });
    rmSync(join(dir, ".."), { recursive: true, force: true });
    forgetProject(project);
  });

  it("refuses to deploy while a referenced secret is missing, before building anything", async () => {
    const r = refused(await cli(["deploy", "--yes", "--project", project]));
    expect(r.stderr).toContain(`secret API_TOKEN is not set in ${project} (preview); nothing was deployed`);
    expect(r.stderr).toContain("platform secrets set API_TOKEN");
    expect(images()).toEqual([]);
    const v = await cli(["validate"]);
    expect(v.code).toBe(0);
    expect(v.stdout).toContain("secret API_TOKEN is not set in the preview environment");
  }, 120_000);

  it("secrets set reads the value from standard input and never prints it; list shows the name and when", async () => {
    const set = ok(await cli(["secrets", "set", "API_TOKEN", "--project", project], `${TOKENS[0]}\n`));
    expect(set.stdout).toContain("✓ Secret API_TOKEN set");
    expect(set.stdout).toContain("used by api");
    const list = ok(await cli(["secrets", "list", "--json"]));
    const body = JSON.parse(list.stdout);
    expect(body.secrets).toEqual([{ name: "API_TOKEN", set: true, setAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), usedBy: ["api"] }]);
  }, 120_000);

  it("deploys: notes say what was chosen, every service serves, NEXT_PUBLIC_API_URL is in the browser's JavaScript", async () => {
    const r = ok(await cli(["deploy"]));
    console.log(`realrepos first deploy: ${r.seconds.toFixed(0)} s`);
    // No source here has Python 3.12: the nearest newer one, built on first need (README "Python and Node versions").
    expect(r.stdout).toMatch(
      /note: api: Python: \.python-version 3\.12, but no image here has Python 3\.12 \(there are 3\.11, 3\.13, 3\.14\): building with Python 3\.13 \(platform-local\/python:3\.13-[0-9a-f]{12}\), the nearest/,
    );
    expect(r.stdout).toContain("note: api: app: service/app.py assigns app (assumed to be the FastAPI app); serving service.app:app");
    expect(r.stdout).toContain("note: web: bun.lock: installing with bun install --frozen-lockfile");
    urls = parseUrls(r.stdout);
    ca = ok(await cli(["ca"])).stdout;

    expect(await get("api", "/health")).toMatchObject({ status: 200 });
    expect(JSON.parse((await get("api", "/token")).body)).toEqual({ sha256: sha256(TOKENS[0] as string) });
    // The route module threw at import without DATABASE_URL: next build needed it, and so does this.
    expect(JSON.parse((await get("web", "/api/health")).body)).toEqual({ ok: true, databaseHost: "database" });
    const page = await get("web", "/");
    expect(page.status).toBe(200);
    const chunks = [...new Set([...page.body.matchAll(/\/_next\/static\/[^"']+\.js/g)].map((m) => m[0]))];
    const bodies = await Promise.all(chunks.map(async (c) => (await get("web", c)).body));
    expect(
      bodies.some((b) => b.includes(urls.api as string)),
      `${urls.api} in ${chunks.join(", ")}`,
    ).toBe(true);
    // The build Dockerfile read the secret file and its declared ARG.
    expect((await get("hook", "/greeting.txt")).body.trim()).toBe("hello-from-the-build");
    expect((await get("hook", "/database-host.txt")).body.trim()).toBe("database");
  }, 900_000);

  it("no image holds a build-time value: not in its layers (docker save), history or config", async () => {
    const url = execFileSync(
      requireToolchain().pulumi,
      [
        "stack",
        "output",
        "database_url",
        "--show-secrets",
        "--stack",
        "preview",
        "--non-interactive",
        "--cwd",
        join(home, "projects", project),
      ],
      { env: pulumiEnv(backend), encoding: "utf8" },
    ).trim();
    password = /^postgresql:\/\/app:([^@]+)@/.exec(url)?.[1] as string;
    expect(password).toMatch(/^[A-Za-z0-9]{32}$/);
    const secrets = [password, TOKENS[0] as string];
    const built = images();
    expect(built.map((i) => i.split(":")[0]).sort()).toEqual([
      `platform/${project}_api`,
      `platform/${project}_hook`,
      `platform/${project}_web`,
    ]);
    for (const image of built) {
      const history = execFileSync("docker", ["history", "--no-trunc", image]).toString();
      const config = execFileSync("docker", ["image", "inspect", image]).toString();
      for (const s of secrets) {
        expect(history.includes(s), `${image} history`).toBe(false);
        expect(config.includes(s), `${image} config`).toBe(false);
      }
      expect(await savedImageContains(image, secrets), `${image} layers`).toEqual([]);
    }
    // An ARG a Dockerfile declares is a build argument, and those do show in history (documented).
    expect(execFileSync("docker", ["history", "--no-trunc", built.find((i) => i.includes("_hook:")) as string]).toString()).toContain(
      "GREETING=hello-from-the-build",
    );
  }, 300_000);

  it("a changed secret: plan says only api is rebuilt and replaced, and the deploy does exactly that", async () => {
    ok(await cli(["secrets", "set", "API_TOKEN"], TOKENS[1]));
    const plan = JSON.parse(ok(await cli(["plan", "--json"])).stdout);
    const ops = Object.fromEntries(
      plan.services.map((s: { name: string; deploy: Record<string, { op: string }> }) => [
        s.name,
        Object.values(s.deploy)
          .map((x) => x.op)
          .join(","),
      ]),
    );
    expect(ops).toEqual({ database: "same", api: "replace,replace", web: "same,same", hook: "same,same" });
    const before = Object.fromEntries(["database", "web", "hook", "api"].map((s) => [s, containerOf(s)]));
    const r = ok(await cli(["deploy"]));
    expect(r.stdout).toContain("web: unchanged");
    expect(r.stdout).toContain("hook: unchanged");
    expect(r.stdout).toContain("api: healthy");
    for (const s of ["database", "web", "hook"]) expect(containerOf(s)).toBe(before[s]);
    expect(containerOf("api")).not.toBe(before.api);
    expect(JSON.parse((await get("api", "/token")).body)).toEqual({ sha256: sha256(TOKENS[1] as string) });
  }, 600_000);

  it("unset: the next deploy is refused, naming the secret and the command", async () => {
    const u = ok(await cli(["secrets", "unset", "API_TOKEN"]));
    expect(u.stdout).toContain("still used by api");
    const r = refused(await cli(["deploy"]));
    expect(r.stderr).toContain("secret API_TOKEN is not set");
    expect(r.stderr).toContain("platform secrets set API_TOKEN");
    expect((await get("api", "/health")).status).toBe(200);
  }, 120_000);

  it("never writes a secret in clear: CLI output, logs, records, workspace, state", () => {
    const clear = [...TOKENS, password];
    expect(password).not.toBe("");
    for (const text of outputs) for (const t of clear) expect(text.includes(t)).toBe(false);
    const hits = [
      join(home, "projects", project),
      join(home, "logs", project),
      (backend.PLATFORM_BACKEND_URL as string).replace("file://", ""),
    ].flatMap((root) => filesContaining(root, clear));
    expect(hits).toEqual([]);
  });
});
