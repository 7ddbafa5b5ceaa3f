// The local base images (scripts/setup/images.sh, images/*) against a real Docker engine.
// The set-up builds them; this test does not: a missing image fails it with what to run.
// Every container and volume it makes has a unique name and is removed at the end; traffic
// from the host goes to ports published on 127.0.0.1 only.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PUBLIC_IMAGES } from "../../src/home/images.js";

const execFileP = promisify(execFile);
const DOCKER = process.env.PLATFORM_DOCKER_CLI ?? (existsSync("/usr/bin/docker") ? "/usr/bin/docker" : "docker");
const PLATFORM_HOME = process.env.PLATFORM_HOME ?? join(homedir(), ".platform");

/** What the set-up was asked for (scripts/setup/images.sh): build the local images, or name the registry's. */
const MODE = process.env.PLATFORM_BASE_IMAGES ?? "local";

const IMAGES = {
  debian: "platform-local/debian:bookworm",
  python: "platform-local/python:3.11",
  node: "platform-local/node:22",
  postgres: "platform-local/postgres:15",
  caddy: "platform-local/caddy:2.11",
  redis: "platform-local/redis:7.0",
} as const;

const RUN_ID = `${process.pid}-${randomBytes(3).toString("hex")}`;
const containers = new Set<string>();
const volumes = new Set<string>();

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command; never throws on a non-zero exit (the caller checks `code`). */
async function exec(file: string, args: string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Result> {
  try {
    const { stdout, stderr } = await execFileP(file, args, {
      env: opts.env ?? process.env,
      timeout: opts.timeoutMs ?? 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number | string; stdout?: string; stderr?: string; message: string };
    return {
      code: typeof err.code === "number" ? err.code : -1,
      stdout: err.stdout ?? "",
      stderr: err.stderr ?? err.message,
    };
  }
}

const docker = (args: string[], timeoutMs?: number) => exec(DOCKER, args, { timeoutMs });

/** Runs docker and fails the test with its output when it exits non-zero. */
async function dockerOk(args: string[], timeoutMs?: number): Promise<string> {
  const r = await docker(args, timeoutMs);
  if (r.code !== 0) {
    throw new Error(`docker ${args.join(" ")} exited ${r.code}:\n${r.stderr}${r.stdout}`);
  }
  return r.stdout.trim();
}

/** `docker run --rm IMAGE CMD...`: stdout and stderr together, trimmed. */
async function runIn(image: string, cmd: string[]): Promise<string> {
  const name = `platform-test-run-${RUN_ID}-${randomBytes(2).toString("hex")}`;
  containers.add(name);
  const r = await docker(["run", "--rm", "--name", name, image, ...cmd], 60_000);
  containers.delete(name);
  if (r.code !== 0) {
    throw new Error(`${cmd.join(" ")} in ${image} exited ${r.code}:\n${r.stderr}${r.stdout}`);
  }
  return (r.stdout + r.stderr).trim();
}

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

beforeAll(async () => {
  const missing: string[] = [];
  for (const image of Object.values(IMAGES)) {
    const r = await docker(["image", "inspect", "-f", '{{ index .Config.Labels "platform.recipe-hash" }}', image]);
    if (r.code !== 0 || !/^[0-9a-f]{64}$/.test(r.stdout.trim())) missing.push(image);
  }
  if (missing.length > 0) {
    // This file tests the local images themselves, whatever the mode: with public images the
    // set-up builds none of them, which is said, not skipped.
    const why =
      MODE === "public"
        ? "PLATFORM_BASE_IMAGES=public: the set-up builds none of them, and this file tests them. Build them once with `PLATFORM_BASE_IMAGES=local npm run setup`."
        : "Run `npm run setup` (its 'Base images' step, scripts/setup/images.sh) first.";
    throw new Error(`base images missing (or built without the platform.recipe-hash label): ${missing.join(", ")}.\n${why}`);
  }
});

afterAll(async () => {
  for (const c of containers) await docker(["rm", "-f", "-v", c]);
  for (const v of volumes) await docker(["volume", "rm", "-f", v]);
});

describe("the set-up's images.json", () => {
  const read = () => {
    const file = join(PLATFORM_HOME, "images.json");
    expect(existsSync(file), `${file} is missing: run npm run setup`).toBe(true);
    return JSON.parse(readFileSync(file, "utf8"));
  };
  const mismatch = `images.json was written for another mode than PLATFORM_BASE_IMAGES=${MODE}: run npm run setup with it`;

  it(`names the images of the set-up's mode (PLATFORM_BASE_IMAGES=${MODE})`, () => {
    expect(["local", "public"], `PLATFORM_BASE_IMAGES=${MODE} is not a mode of the set-up`).toContain(MODE);
    if (MODE === "public") {
      // The registry's tags, the same the product falls back on without images.json; no catalogue
      // of versions (the official tag of any other version is asked for as it is).
      const { debian, ...roles } = read();
      expect(roles, mismatch).toEqual(PUBLIC_IMAGES);
      expect(debian, mismatch).toBe("debian:bookworm-slim");
      return;
    }
    const { "python-versions": python, "node-versions": node, "postgres-versions": postgres, ...roles } = read();
    expect(roles, mismatch).toEqual(IMAGES);
    // The other versions' tags (built on first need): the defaults' plain tags, the others' with their recipe hash.
    expect(Object.keys(python)).toEqual(["3.11", "3.13", "3.14"]);
    expect(python["3.11"]).toBe(IMAGES.python);
    expect(python["3.14"]).toMatch(/^platform-local\/python:3\.14-[0-9a-f]{12}$/);
    expect(Object.keys(node)).toEqual(["20", "22", "24"]);
    expect(node["22"]).toBe(IMAGES.node);
    expect(node["24"]).toMatch(/^platform-local\/node:24-[0-9a-f]{12}$/);
    expect(Object.keys(postgres)).toEqual(["15", "17", "18"]);
    expect(postgres["15"]).toBe(IMAGES.postgres);
    expect(postgres["17"]).toMatch(/^platform-local\/postgres:17-[0-9a-f]{12}$/);
  });
});

describe("platform-local/python:3.11", () => {
  it("has python 3.11 and pip on PATH, and python -m venv works", async () => {
    expect(await runIn(IMAGES.python, ["python", "--version"])).toMatch(/^Python 3\.11\.\d+$/);
    expect(await runIn(IMAGES.python, ["python3", "--version"])).toMatch(/^Python 3\.11\.\d+$/);
    expect(await runIn(IMAGES.python, ["pip", "--version"])).toMatch(/^pip \d+\.\d+.*\(python 3\.11\)$/);
    expect(
      await runIn(IMAGES.python, [
        "sh",
        "-c",
        "python -m venv /tmp/venv && /tmp/venv/bin/python -c 'import sys; print(sys.prefix)' && /tmp/venv/bin/pip --version",
      ]),
    ).toMatch(/^\/tmp\/venv\npip \d+/);
  });

  it("lets root pip install into the image's site-packages (no PEP 668 refusal)", async () => {
    // offline: a one-module project built with the image's own setuptools
    const script = [
      "set -e",
      "mkdir -p /tmp/hello && cd /tmp/hello",
      `printf '[build-system]\\nrequires = ["setuptools"]\\nbuild-backend = "setuptools.build_meta"\\n[project]\\nname = "hello-platform"\\nversion = "1.0"\\n' > pyproject.toml`,
      "echo 'GREETING = \"hi\"' > hello_platform.py",
      "cd / && pip install --quiet --no-index --no-build-isolation /tmp/hello",
      "python -c 'import hello_platform; print(hello_platform.GREETING, hello_platform.__file__)'",
      "python -c 'import os; print(os.environ[\"PYTHONUNBUFFERED\"])'",
      "test -s /etc/ssl/certs/ca-certificates.crt && echo ca-ok",
    ].join("\n");
    const out = await runIn(IMAGES.python, ["sh", "-c", script]);
    expect(out).toContain("hi /usr/local/lib/python3.11/site-packages/hello_platform.py");
    expect(out).toMatch(/^1$/m);
    expect(out).toContain("ca-ok");
  });
});

describe("platform-local/node:22", () => {
  it("has node 22, npm, npx, yarn and pnpm on PATH", async () => {
    expect(await runIn(IMAGES.node, ["node", "--version"])).toMatch(/^v22\.\d+\.\d+$/);
    expect(await runIn(IMAGES.node, ["npm", "--version"])).toMatch(/^\d+\.\d+\.\d+$/);
    expect(await runIn(IMAGES.node, ["npx", "--version"])).toMatch(/^\d+\.\d+\.\d+$/);
    expect(await runIn(IMAGES.node, ["yarn", "--version"])).toMatch(/^1\.\d+\.\d+$/);
    expect(await runIn(IMAGES.node, ["pnpm", "--version"])).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("has the node user (uid 1000) and the headers for native addons", async () => {
    const out = await runIn(IMAGES.node, [
      "sh",
      "-c",
      "id -u node && test -f /usr/local/include/node/node.h && echo headers-ok && npm config get prefix",
    ]);
    expect(out.split("\n")).toEqual(["1000", "headers-ok", "/usr/local"]);
  });
});

describe("platform-local/caddy:2.11", () => {
  it("runs `caddy version`", async () => {
    // A build from vendored modules (scripts/setup/go/caddy/patches.txt) prints no module hash after the version.
    expect(await runIn(IMAGES.caddy, ["caddy", "version"])).toMatch(/^v?2\.11\.9(\s|$)/);
  });

  it("keeps its local CA in the /data volume", async () => {
    const name = `platform-test-caddy-${RUN_ID}`;
    containers.add(name);
    const config = "{\\n\\tadmin off\\n\\tskip_install_trust\\n}\\nlocalhost {\\n\\ttls internal\\n\\trespond ok\\n}\\n";
    await dockerOk([
      "run",
      "-d",
      "--name",
      name,
      IMAGES.caddy,
      "sh",
      "-c",
      `printf '${config}' > /tmp/Caddyfile && exec caddy run --config /tmp/Caddyfile --adapter caddyfile`,
    ]);
    const deadline = Date.now() + 30_000;
    let found = false;
    while (!found && Date.now() < deadline) {
      found = (await docker(["exec", name, "test", "-s", "/data/caddy/pki/authorities/local/root.crt"])).code === 0;
      if (!found) await sleep(250);
    }
    const logs = await docker(["logs", name]);
    expect(found, `no /data/caddy/pki/authorities/local/root.crt; caddy logs:\n${logs.stderr}`).toBe(true);
    await docker(["rm", "-f", "-v", name]);
    containers.delete(name);
  }, 60_000);
});

describe("platform-local/postgres:15", () => {
  const user = "app";
  const password = `pw-${randomBytes(6).toString("hex")}`;
  const db = "appdb";
  const volume = `platform-test-pg-${RUN_ID}`;

  async function startPostgres(name: string): Promise<number> {
    containers.add(name);
    await dockerOk([
      "run",
      "-d",
      "--name",
      name,
      "-e",
      `POSTGRES_USER=${user}`,
      "-e",
      `POSTGRES_PASSWORD=${password}`,
      "-e",
      `POSTGRES_DB=${db}`,
      "-v",
      `${volume}:/var/lib/postgresql/data`,
      "-p",
      "127.0.0.1::5432",
      IMAGES.postgres,
    ]);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const r = await docker(["exec", name, "pg_isready", "-U", user, "-d", db]);
      if (r.code === 0) break;
      const state = await dockerOk(["inspect", "-f", "{{.State.Status}}", name]);
      if (state !== "running" || Date.now() > deadline) {
        const logs = await docker(["logs", name]);
        throw new Error(`postgres ${name} not ready (state ${state}):\n${logs.stdout}${logs.stderr}`);
      }
      await sleep(200);
    }
    const ports = await dockerOk(["port", name, "5432/tcp"]);
    const m = ports.match(/^127\.0\.0\.1:(\d+)$/m);
    if (!m) throw new Error(`5432 is not published on 127.0.0.1: ${ports}`);
    return Number(m[1]);
  }

  const psqlIn = (name: string, sql: string) =>
    dockerOk(["exec", name, "psql", "-v", "ON_ERROR_STOP=1", "-U", user, "-d", db, "-tAc", sql]);

  const psqlFromHost = (port: number, pw: string, sql: string) =>
    exec("psql", ["-h", "127.0.0.1", "-p", String(port), "-U", user, "-d", db, "-tAc", sql], {
      env: { ...process.env, PGPASSWORD: pw, PGCONNECT_TIMEOUT: "10", PGSSLMODE: "disable" },
    });

  beforeAll(async () => {
    volumes.add(volume);
    await dockerOk(["volume", "create", volume]);
  });

  it("initialises once, authenticates over TCP, stops fast on SIGTERM, and keeps data on its volume", async () => {
    const first = `platform-test-pg1-${RUN_ID}`;
    const port1 = await startPostgres(first);
    await psqlIn(first, "CREATE TABLE notes (id int PRIMARY KEY, body text); INSERT INTO notes VALUES (1, 'kept');");

    // from the host over TCP: the right password works, a wrong one is refused
    const ok = await psqlFromHost(port1, password, "SELECT body FROM notes");
    expect(ok.stderr).toBe("");
    expect(ok.stdout.trim()).toBe("kept");
    const refused = await psqlFromHost(port1, "wrong-password", "SELECT 1");
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/password authentication failed for user "app"/);

    // SIGTERM is a fast shutdown (a plain postgres would do a smart one and wait for clients)
    const t0 = Date.now();
    await dockerOk(["kill", "--signal", "TERM", first]);
    expect(await dockerOk(["wait", first], 30_000)).toBe("0");
    expect(Date.now() - t0).toBeLessThan(10_000);
    const logs1 = await docker(["logs", first]);
    expect(logs1.stdout + logs1.stderr).toMatch(/received fast shutdown request/);
    await dockerOk(["rm", first]);
    containers.delete(first);

    // a new container on the same volume finds the data and does not initialise again
    const second = `platform-test-pg2-${RUN_ID}`;
    const port2 = await startPostgres(second);
    expect(await psqlIn(second, "SELECT body FROM notes WHERE id = 1")).toBe("kept");
    const logs2 = await docker(["logs", second]);
    expect(logs2.stdout + logs2.stderr).toMatch(/skipping initialisation/);
    expect(logs2.stdout + logs2.stderr).not.toMatch(/initialising a new database cluster/);
    expect((await psqlFromHost(port2, password, "SELECT count(*) FROM notes")).stdout.trim()).toBe("1");
    await docker(["rm", "-f", "-v", second]);
    containers.delete(second);
  }, 180_000);

  it("refuses to initialise without POSTGRES_PASSWORD, saying what to set", async () => {
    const name = `platform-test-pg-nopw-${RUN_ID}`;
    containers.add(name);
    const r = await docker(["run", "--rm", "--name", name, IMAGES.postgres], 60_000);
    containers.delete(name);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/POSTGRES_PASSWORD/);
  }, 60_000);
});
