import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDockerfileArgs, variablesSeenBy } from "../../../../src/plan/dockerfile-args.js";
import { combineBuildHash, hashBuildEnv } from "../../../../src/targets/shared/context-hash.js";
import { pickBuildArgVariables, toEnvFile } from "../../../../src/provider/docker/image.js";

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
