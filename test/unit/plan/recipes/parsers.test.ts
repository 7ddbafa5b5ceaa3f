import { describe, expect, it } from "vitest";
import {
  buildDockerignore,
  buildNetworkRun,
  parseImageRef,
  parseTagVersion,
  toShellWord,
} from "../../../../src/plan/recipes/dockerfile-parts.js";
import { parsePyproject } from "../../../../src/plan/recipes/parse-pyproject.js";
import { choosePythonRuntime, matchesPythonSpec, parsePythonVersionFile } from "../../../../src/plan/recipes/python-version.js";

describe("matchesPythonSpec", () => {
  it.each([
    [">=3.11", "3.11", true],
    [">=3.11", "3.10", false],
    [">=3.10,<3.13", "3.12", true],
    [">=3.10,<3.13", "3.13", false],
    ["<3.12", "3.12", false],
    ["<3.12.4", "3.12", true],
    ["<=3.11", "3.11", true],
    [">3.11", "3.11", false],
    [">3.11.2", "3.11", true],
    ["==3.11.*", "3.11", true],
    ["==3.11.*", "3.12", false],
    ["==3.*", "3.13", true],
    ["!=3.12.*", "3.12", false],
    ["!=3.12.1", "3.12", true],
    ["~=3.11", "3.13", true],
    ["~=3.11", "3.10", false],
    ["~=3.11.2", "3.12", false],
    ["^3.11", "3.13", true],
    ["^3.11", "4.0", false],
    ["~3.11", "3.11", true],
    ["~3.11", "3.12", false],
    ["3.11", "3.11", true],
    [">=3.9 <3.13", "3.12", true],
    [">=3.9 <3.13", "3.13", false],
    [">=3.8,<3.9 || >=3.11", "3.11", true],
    ["*", "3.11", true],
    [">= 3.10", "3.11", true],
    ["python3", "3.11", undefined],
    ["", "3.11", undefined],
  ] as const)("%j with %s is %s", (spec, version, expected) => {
    expect(matchesPythonSpec(spec, version)).toBe(expected);
  });
});

describe("parsePythonVersionFile", () => {
  it.each([
    ["3.12\n", "3.12"],
    ["3.12.4", "3.12"],
    ["# pinned\n3.11\n", "3.11"],
    ["cpython-3.13.1", "3.13"],
    ["pypy3.10", undefined],
    ["\n", undefined],
  ])("%j -> %s", (text, expected) => {
    expect(parsePythonVersionFile(text)).toBe(expected);
  });
});

describe("choosePythonRuntime", () => {
  it("keeps an image whose Python version it cannot tell", () => {
    expect(choosePythonRuntime({ pin: { from: ".python-version", version: "3.12" } }, "my/python:latest")).toEqual({
      image: "my/python:latest",
      notes: ["Python: .python-version 3.12; cannot tell the Python version of my/python:latest, using it as is"],
    });
  });
  it("says when it cannot read a specifier", () => {
    expect(choosePythonRuntime({ range: { from: "requires-python", spec: "whatever" } }, "python:3.11-slim").notes).toEqual([
      'Python: could not read requires-python "whatever"; using python:3.11-slim (Python 3.11)',
    ]);
  });
  it("swaps docker.io/library/python too", () => {
    expect(choosePythonRuntime({ pin: { from: ".python-version", version: "3.13" } }, "docker.io/library/python:3.11-slim").image).toBe(
      "python:3.13-slim",
    );
  });
});

describe("parsePyproject", () => {
  const text = `
[build-system]
requires = ["hatchling"]  # backend
build-backend = "hatchling.build"

[project]
name = "svc"
description = """
A [bracketed] description = not a key
"""
requires-python = ">=3.11" # inline comment
dependencies = [
  "fastapi[standard]>=0.110",  # web
  'httpx==0.28.1',
]
dynamic = ["version"]

[tool.uv]
package = false

[tool.poetry.dependencies]
python = { version = "^3.12", source = "x" }
fastapi = "^0.165"

[tool.fastapi]
entrypoint = "svc.main:app"
`;
  it("reads the fields recipes use", () => {
    expect(parsePyproject(text)).toEqual({
      hasProject: true,
      requiresPython: ">=3.11",
      dependencies: ["fastapi[standard]>=0.110", "httpx==0.28.1"],
      dynamicDependencies: false,
      hasBuildSystem: true,
      uvPackage: false,
      hasPoetry: true,
      poetryPython: "^3.12",
      poetryDependencies: ["python", "fastapi"],
      fastapiEntrypoint: "svc.main:app",
      name: "svc",
      uvWorkspaceMembers: undefined,
      devGroups: [],
    });
  });
  it("reads the dependency groups beside the runtime ones: PEP 735, uv's and Poetry's, old and new", () => {
    expect(parsePyproject('[dependency-groups]\ndev = ["alembic", "pytest"]\nlint = ["ruff"]\n').devGroups).toEqual(["dev", "lint"]);
    expect(parsePyproject('[tool.uv]\ndev-dependencies = ["alembic"]\n').devGroups).toEqual(["dev"]);
    expect(
      parsePyproject('[tool.poetry.group.test.dependencies]\npytest = "*"\n[tool.poetry.group.dev.dependencies]\nalembic = "*"\n')
        .devGroups,
    ).toEqual(["dev", "test"]);
    expect(parsePyproject('[tool.poetry.dev-dependencies]\nalembic = "*"\n').devGroups).toEqual(["dev"]);
    expect(parsePyproject('[project]\ndependencies = ["alembic"]\n').devGroups).toEqual([]);
  });
  it("reads a uv workspace root's members", () => {
    const root = parsePyproject(
      '[project]\nname = "root"\n[tool.uv.workspace]\nmembers = ["services/*", "libs/*"]\nexclude = ["libs/old"]\n',
    );
    expect(root.uvWorkspaceMembers).toEqual(["services/*", "libs/*"]);
    expect(root.name).toBe("root");
    expect(parsePyproject("[tool.uv]\npackage = true\n").uvWorkspaceMembers).toBeUndefined();
  });
  it("reads dotted keys and dynamic dependencies", () => {
    const p = parsePyproject('tool.poetry.name = "x"\n[project]\nname = "x"\ndynamic = ["dependencies", "version"]\n');
    expect(p.hasPoetry).toBe(true);
    expect(p.dynamicDependencies).toBe(true);
    expect(p.hasBuildSystem).toBe(false);
  });
});

describe("Dockerfile parts", () => {
  it.each([
    ["plain", "plain"],
    ["uvicorn[standard]", '"uvicorn[standard]"'],
    ["a b", '"a b"'],
    ["$HOME", "'$HOME'"],
    ["it's $x", "'it'\\''s $x'"],
  ])("toShellWord(%j) = %s", (word, expected) => {
    expect(toShellWord(word)).toBe(expected);
  });

  it("mounts the CA secret in a single-quoted script", () => {
    expect(buildNetworkRun("pip install 'x'")).toBe(
      "RUN --mount=type=secret,id=ca sh -c 'if [ -s /run/secrets/ca ]; then export PIP_CERT=/run/secrets/ca SSL_CERT_FILE=/run/secrets/ca NODE_EXTRA_CA_CERTS=/run/secrets/ca REQUESTS_CA_BUNDLE=/run/secrets/ca UV_NATIVE_TLS=1; fi; pip install '\\''x'\\'''",
    );
  });

  it.each([
    ["python:3.11-slim", { repository: "python", tag: "3.11-slim", official: true }],
    ["platform-local/python:3.11", { repository: "platform-local/python", tag: "3.11", official: false }],
    ["docker.io/library/node:22", { repository: "node", tag: "22", official: true }],
    ["localhost:5000/node", { repository: "localhost:5000/node", tag: "latest", official: false }],
    ["node@sha256:abc", { repository: "node", tag: "latest", official: true }],
  ])("parseImageRef(%s)", (image, expected) => {
    expect(parseImageRef(image)).toEqual(expected);
  });

  it.each([
    ["3.11-slim", 2, "3.11"],
    ["22-bookworm-slim", 1, "22"],
    ["22", 2, undefined],
    ["latest", 1, undefined],
    ["v20.1", 1, "20"],
  ] as const)("parseTagVersion(%s, %d) = %s", (tag, parts, expected) => {
    expect(parseTagVersion(tag, parts)).toBe(expected);
  });

  it("keeps the user's .dockerignore after the defaults, lines as written", () => {
    expect(buildDockerignore(["a", "b"], "\uFEFF\nc\r\n  !d \n #not-a-comment\n")).toBe(
      "# generated by platform: local caches and environments never enter the image\na\nb\n# from the service's .dockerignore\nc\n  !d \n #not-a-comment\n",
    );
    expect(buildDockerignore(["a"], undefined)).toBe("# generated by platform: local caches and environments never enter the image\na\n");
  });
});
