import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDockerfileArgs, variablesSeenBy } from "../../../../src/plan/dockerfile-args.js";
import { combineBuildHash, hashBuildEnv } from "../../../../src/targets/shared/context-hash.js";
import { diagnoseBuildLog, pickBuildArgVariables, toEnvFile } from "../../../../src/provider/docker/image.js";

describe("the platform-env secret file", () => {
  const values = {
    PLAIN: "hello",
    QUOTES: `it's "quoted" and 'single'`,
    SHELL: "$(touch /tmp/pwned) `id` $HOME ${X} \\ ; & | > <",
    NEWLINES: "line one\nline two\n",
    EMPTY: "",
    URL: "postgresql://app:p%40ss@database:5432/app?sslmode=disable",
  };

  it("reads back exactly with set -a; . file (no expansion, no command runs)", () => {
    const dir = mkdtempSync(join(tmpdir(), "envfile-"));
    try {
      const file = join(dir, "platform-env");
      writeFileSync(file, toEnvFile(values));
      const script = `set -a; . ${file}; set +a; node -e 'process.stdout.write(JSON.stringify(Object.fromEntries(${JSON.stringify(Object.keys(values))}.map((k) => [k, process.env[k]]))))'`;
      const out = execFileSync("sh", ["-c", script], { encoding: "utf8", env: { PATH: process.env.PATH } });
      expect(JSON.parse(out)).toEqual(values);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is one NAME='value' line per variable", () => {
    expect(toEnvFile({ A: "1", B: "x'y" })).toBe("A='1'\nB='x'\\''y'\n");
    expect(toEnvFile({})).toBe("");
  });
});

describe("build arguments of a build Dockerfile", () => {
  it("parses ARG lines: defaults, several per line, continuations, case, comments", () => {
    const text = [
      "# ARG COMMENTED",
      "ARG PLATFORM_PYTHON_IMAGE=python:3.11-slim",
      "FROM ${PLATFORM_PYTHON_IMAGE}",
      "arg lower",
      'ARG A=1 B "C=x y"',
      'ARG D="quoted value" \\',
      "    E",
      "RUN echo ARG NOT_THIS",
      "ARG A",
    ].join("\n");
    expect(parseDockerfileArgs(text)).toEqual(["PLATFORM_PYTHON_IMAGE", "lower", "A", "B", "D", "E"]);
  });

  it("passes only declared names that the service has, never the docker client's own variables", () => {
    const dockerfile = "ARG NEXT_PUBLIC_API_URL\nARG PATH\nARG DOCKER_HOST\nARG MISSING\nFROM x\n";
    const picked = pickBuildArgVariables(dockerfile, {
      NEXT_PUBLIC_API_URL: "https://a",
      DATABASE_URL: "secret",
      PATH: "/x",
      DOCKER_HOST: "tcp://x",
    });
    expect(picked).toEqual({ NEXT_PUBLIC_API_URL: "https://a" });
  });
});

describe("the hash of build-time values", () => {
  const key = Buffer.alloc(32, 7);
  const hash = (values: Record<string, string>, k = key) => hashBuildEnv(values, k);

  it("changes with any value, not with order, and never contains the value", () => {
    const a = hash({ A: "1", B: "2" });
    expect(hash({ B: "2", A: "1" })).toBe(a);
    expect(hash({ A: "1", B: "3" })).not.toBe(a);
    expect(hash({ A: "12" })).not.toBe(hash({ A: "1", "2": "" }));
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(combineBuildHash("x", a)).not.toBe(combineBuildHash("x", hash({})));
  });

  it("is keyed by the machine: a short secret cannot be guessed from it by trying values", () => {
    const values = { PIN: "1234" };
    const plain = createHash("sha256").update("platform-build-env/2\0PIN\x001234\0").digest("hex");
    expect(hash(values)).not.toBe(plain);
    expect(hash(values, Buffer.alloc(32, 8))).not.toBe(hash(values));
  });
});

describe("diagnoseBuildLog", () => {
  const cases: Array<[string, string, RegExp]> = [
    ["next/font/google offline", "#12 8.1 Failed to fetch `Inter` from Google Fonts.\n#12 8.1 Error: ...", /next\/font\/local/],
    ["gcc missing (setuptools)", "#9 21.0   error: command 'gcc' failed: No such file or directory", /C compiler/],
    ["gcc missing (x86_64 prefix)", "#9 21.0 error: command '/usr/bin/x86_64-linux-gnu-gcc' failed with exit code 1", /C compiler/],
    ["gcc missing (shell)", "#9 3.0 /bin/sh: 1: gcc: not found", /C compiler/],
    // Seen deploying nsidnev/fastapi-realworld-example-app: its 2022 pins have no wheels for Python 3.11.
    ["psycopg2 from source", "#12 45.20       Error: pg_config executable not found.", /C compiler/],
    ["a wheel that did not build", "#12 50.1   ERROR: Failed building wheel for greenlet", /C compiler/],
    // Seen deploying vercel/next-learn dashboard/final-example (bcrypt 5 through node-pre-gyp).
    [
      "node-pre-gyp offline",
      "#11 82.17 .../bcrypt@5.1.1/node_modules/bcrypt install: node-pre-gyp WARN Pre-built binaries not installable for bcrypt@5.1.1 and node@22.23.3",
      /bcryptjs/,
    ],
    [
      "node-gyp without Python",
      "#11 82.56 .../bcrypt install: gyp ERR! find Python Python is not set from command line or npm configuration",
      /Python and a C compiler/,
    ],
    ["node-gyp without make", "#9 gyp ERR! stack Error: not found: make", /C compiler/],
    [
      "npm ci out of sync",
      "#10 npm error `npm ci` can only install packages when your package.json and package-lock.json or npm-shrinkwrap.json are in sync. Please update your lock file",
      /npm install and commit package-lock\.json/,
    ],
    ["npm ci lock file's", "npm error Invalid: lock file's next@15.0.0 does not satisfy next@15.5.29", /package-lock\.json/],
    ["pnpm outdated", ' ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with "frozen-lockfile"', /pnpm install and commit/],
    ["yarn frozen", "error Your lockfile needs to be updated, but yarn was run with `--frozen-lockfile`.", /yarn install and commit/],
    [
      "yarn berry immutable",
      "➤ YN0028: │ The lockfile would have been modified by this install, which is explicitly forbidden.",
      /yarn install/,
    ],
    ["bun frozen", "error: lockfile had changes, but lockfile is frozen", /bun install and commit/],
    ["uv lock stale", "error: The lockfile at `uv.lock` needs to be updated, but `--frozen` was provided.", /uv lock and commit/],
    [
      "poetry lock stale",
      "pyproject.toml changed significantly since poetry.lock was last generated. Run `poetry lock` to fix the lock file.",
      /poetry lock and commit/,
    ],
    ["poetry not consistent", "Error: poetry.lock is not consistent with pyproject.toml.", /poetry lock/],
    // Poetry's own installer (no poetry.lock) against an index without the JSON API.
    ["poetry without candidates", "#12 6.231     | Unable to find installation candidates for sniffio (1.2.0)", /poetry lock --regenerate/],
    // Seen deploying fastapi/full-stack-fastapi-template (requires-python >=3.14) on Python 3.11.
    [
      "requires-python (uv)",
      "#13 2.923   cause: Because the current Python version (3.11.2) does not satisfy Python>=3.14,<4.0 and app==0.1.0 depends on Python>=3.14,<4.0",
      /requires-python/,
    ],
    ["requires-python (pip)", "ERROR: Package 'app' requires a different Python: 3.11.2 not in '>=3.14,<4.0'", /requires-python/],
    ["pip without a distribution", "ERROR: No matching distribution found for asyncpg==0.21.0", /not on the package index/],
  ];
  it.each(cases)("%s", (_name, log, expected) => {
    const line = diagnoseBuildLog(log);
    expect(line).toMatch(expected);
    expect(line).not.toContain("\n");
  });

  it("says nothing about a log it does not recognise", () => {
    expect(diagnoseBuildLog('#5 ERROR: process "/bin/sh -c exit 3" did not complete successfully: exit code: 3')).toBeUndefined();
  });
});

describe("the variables a Dockerfile can read, which alone make an image's identity", () => {
  const names = ["DATABASE_URL", "API_URL", "NEXT_PUBLIC_X"];
  it("all of them when a step mounts the platform-env secret (the recipes)", () => {
    const dockerfile = "FROM node\nRUN --mount=type=secret,id=ca --mount=type=secret,id=platform-env sh -c 'npm run build'\n";
    expect(variablesSeenBy(dockerfile, names)).toEqual(names);
  });

  it("only the declared build arguments otherwise, none for a Dockerfile that reads no variable", () => {
    expect(variablesSeenBy("FROM python\nARG API_URL\nRUN --mount=type=secret,id=ca pip install x\n", names)).toEqual(["API_URL"]);
    expect(variablesSeenBy("FROM python\nRUN --mount=type=secret,id=platform-envelope true\n", names)).toEqual([]);
  });
});
