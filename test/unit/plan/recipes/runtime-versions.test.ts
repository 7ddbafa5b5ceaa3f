// The Python and Node version choosers (runtime-choice.ts, python-version.ts, node-version.ts):
// pins taken exactly, ranges keep the default when they admit it and else take the newest
// available, the nearest (newer first) when nothing matches; local catalogues (images.json),
// official tags in public mode, and a team's own image as the only one.
import { describe, expect, it } from "vitest";
import { buildFastapiRecipe, buildNextjsRecipe } from "../../../../src/plan/recipes/index.js";
import { chooseNodeRuntime, parseNodeVersionFile } from "../../../../src/plan/recipes/node-version.js";
import { choosePythonRuntime, parseRuntimeTxt } from "../../../../src/plan/recipes/python-version.js";
import { chooseVersion } from "../../../../src/plan/recipes/runtime-choice.js";
import { isFallbackNote } from "../../../../src/plan/recipes/types.js";
import { PUBLIC, snapshot, stage } from "./snapshot.js";

const PY = {
  "3.11": "platform-local/python:3.11",
  "3.13": "platform-local/python:3.13-aaaaaaaaaaaa",
  "3.14": "platform-local/python:3.14-bbbbbbbbbbbb",
};
const NODE = { "20": "platform-local/node:20-cccccccccccc", "22": "platform-local/node:22", "24": "platform-local/node:24-dddddddddddd" };
const LOCAL = { python: PY["3.11"], node: NODE["22"], pythonVersions: PY, nodeVersions: NODE };

const MAIN = "from fastapi import FastAPI\napp = FastAPI()\n";
const REQS = "fastapi==0.165.0\nuvicorn[standard]==0.54.0\n";
const pyproject = (requires: string) => `[project]\nname = "svc"\nversion = "1.0.0"\nrequires-python = "${requires}"\ndependencies = []\n`;
const poetry = (python: string) =>
  `[tool.poetry]\nname = "svc"\npackage-mode = false\n\n[tool.poetry.dependencies]\npython = "${python}"\n`;

describe("chooseVersion", () => {
  const inputs = {
    available: ["3.11", "3.13", "3.14"],
    defaultVersion: "3.11",
    known: ["3.10", "3.11", "3.12", "3.13", "3.14", "3.15"],
    key: (v: string) => Number(v.split(".")[1]),
  };
  const range = (test: (v: string) => boolean | undefined) => ({ from: "r", text: "r", admits: test });

  it.each([
    ["a pin that is there", { pin: { from: "p", version: "3.13" } }, { version: "3.13", reason: "pinned" }],
    [
      "a pin that is not: the nearest newer",
      { pin: { from: "p", version: "3.12" } },
      { version: "3.13", reason: "nearest", wanted: "3.12" },
    ],
    [
      "a pin past the newest: the nearest older",
      { pin: { from: "p", version: "3.15" } },
      { version: "3.14", reason: "nearest", wanted: "3.15" },
    ],
    ["no request", {}, { version: "3.11", reason: "default" }],
    ["an unreadable range", { range: range(() => undefined) }, { version: "3.11", reason: "default" }],
    ["a range with the default", { range: range(() => true) }, { version: "3.11", reason: "default-admitted" }],
    ["a range without it: the newest", { range: range((v) => v !== "3.11") }, { version: "3.14", reason: "newest-admitted" }],
    ["a range that admits none here", { range: range((v) => v === "3.12") }, { version: "3.13", reason: "nearest", wanted: "3.12" }],
    ["a range that admits nothing at all", { range: range(() => false) }, { version: "3.11", reason: "nearest" }],
  ] as const)("%s", (_name, request, expected) => {
    expect(chooseVersion(request, inputs)).toEqual(expected);
  });

  it("a missing pin goes to the nearest version the range admits", () => {
    const r = chooseVersion({ pin: { from: "p", version: "3.12" }, range: range((v) => v !== "3.13") }, inputs);
    expect(r).toEqual({ version: "3.14", reason: "nearest", wanted: "3.12" });
  });
});

describe("parseRuntimeTxt", () => {
  it.each([
    ["python-3.12.4\n", "3.12"],
    ["python-3.14", "3.14"],
    ["3.12", undefined],
    ["", undefined],
  ])("%j -> %s", (text, expected) => expect(parseRuntimeTxt(text)).toBe(expected));
});

describe("parseNodeVersionFile", () => {
  it.each([
    ["20\n", 20],
    ["v20.11.1", 20],
    ["24.1", 24],
    ["22.x", 22],
    ["lts/iron", 20],
    ["lts/Jod", 22],
    ["lts/*", 24],
    ["node", -1],
    ["# a comment\n18", 18],
    ["system", undefined],
    ["lts/nosuchname", undefined],
    ["", undefined],
  ] as const)("%j -> %s", (text, expected) => expect(parseNodeVersionFile(text)).toBe(expected));
});

describe("Python: the local catalogue (images.json)", () => {
  const cases: Array<{ name: string; files: Record<string, string | null>; from: string; note: string; fallback?: boolean }> = [
    {
      name: "nothing requested: the default",
      files: {},
      from: PY["3.11"],
      note: "Python: no .python-version or requires-python; using platform-local/python:3.11",
    },
    {
      name: ".python-version 3.14: pinned",
      files: { ".python-version": "3.14\n" },
      from: PY["3.14"],
      note: `Python: .python-version 3.14; using ${PY["3.14"]}`,
    },
    {
      name: "runtime.txt",
      files: { "runtime.txt": "python-3.13.2\n" },
      from: PY["3.13"],
      note: `Python: runtime.txt 3.13; using ${PY["3.13"]}`,
    },
    {
      name: ".python-version wins over runtime.txt and requires-python",
      files: { ".python-version": "3.14", "runtime.txt": "python-3.13.2", "pyproject.toml": pyproject(">=3.11") },
      from: PY["3.14"],
      note: `Python: .python-version 3.14; using ${PY["3.14"]}`,
    },
    {
      name: "a range that admits the default keeps it",
      files: { "pyproject.toml": pyproject(">=3.10") },
      from: PY["3.11"],
      note: 'Python: requires-python ">=3.10"; platform-local/python:3.11 has Python 3.11',
    },
    {
      name: "a range past the default: the newest it admits",
      files: { "pyproject.toml": pyproject(">=3.13") },
      from: PY["3.14"],
      note: `Python: requires-python ">=3.13"; using ${PY["3.14"]}, the newest Python here that it admits (not the default 3.11)`,
    },
    {
      name: "a bounded range",
      files: { "pyproject.toml": pyproject(">=3.12,<3.14") },
      from: PY["3.13"],
      note: `Python: requires-python ">=3.12,<3.14"; using ${PY["3.13"]}, the newest Python here that it admits (not the default 3.11)`,
    },
    {
      name: "Poetry's caret",
      files: { "pyproject.toml": poetry("^3.13"), "poetry.lock": null },
      from: PY["3.14"],
      note: `Python: tool.poetry python "^3.13"; using ${PY["3.14"]}, the newest Python here that it admits (not the default 3.11)`,
    },
    {
      name: "3.12, which no source here has: the nearest newer",
      files: { ".python-version": "3.12\n" },
      from: PY["3.13"],
      note: `Python: .python-version 3.12, but no image here has Python 3.12 (there are 3.11, 3.13, 3.14): building with Python 3.13 (${PY["3.13"]}), the nearest`,
      fallback: true,
    },
    {
      name: "a range that admits only 3.12: the nearest, and uv will say why it refuses",
      files: { "pyproject.toml": pyproject(">=3.12,<3.13") },
      from: PY["3.13"],
      note: `Python: requires-python ">=3.12,<3.13", but no image here has Python 3.12 (there are 3.11, 3.13, 3.14): building with Python 3.13 (${PY["3.13"]}), the nearest`,
      fallback: true,
    },
    {
      name: "a pin older than any: the nearest newer",
      files: { ".python-version": "3.9\n" },
      from: PY["3.11"],
      note: "Python: .python-version 3.9, but no image here has Python 3.9 (there are 3.11, 3.13, 3.14): building with Python 3.11 (platform-local/python:3.11), the nearest",
      fallback: true,
    },
  ];

  it.each(cases)("$name", ({ files, from, note, fallback }) => {
    const recipe = buildFastapiRecipe(snapshot({ "requirements.txt": REQS, "main.py": MAIN, ...files }), LOCAL);
    expect(stage(recipe.dockerfile, 0)[0]).toBe(`FROM ${from} AS build`);
    expect(stage(recipe.dockerfile, 1)[0]).toBe(`FROM ${from}`);
    expect(recipe.baseImage).toBe(from);
    expect(recipe.summary.runtime).toBe(note);
    expect(recipe.summary.fallbacks.includes(note)).toBe(fallback === true);
  });
});

describe("Python: a uv workspace member", () => {
  it("takes the workspace root's .python-version when it has none (as uv does)", () => {
    const root = snapshot({
      "pyproject.toml": '[project]\nname = "root"\nversion = "0"\n\n[tool.uv.workspace]\nmembers = ["backend"]\n',
      "uv.lock": null,
      ".python-version": "3.14\n",
      "backend/pyproject.toml": null,
    });
    const member = {
      ...snapshot({ "pyproject.toml": pyproject(">=3.13"), "main.py": MAIN }),
      workspace: { kind: "uv" as const, root: "..", member: "backend", snapshot: root },
    };
    const recipe = buildFastapiRecipe(member, LOCAL);
    expect(recipe.baseImage).toBe(PY["3.14"]);
    expect(recipe.summary.runtime).toBe(`Python: the workspace root's .python-version 3.14; using ${PY["3.14"]}`);
  });
});

describe("Python: public images and a team's own", () => {
  it("public mode takes the official tag of the version chosen", () => {
    expect(choosePythonRuntime({ pin: { from: ".python-version", version: "3.14" } }, "python:3.11-slim").image).toBe("python:3.14-slim");
    expect(choosePythonRuntime({ range: { from: "requires-python", spec: ">=3.12" } }, "python:3.11-slim").image).toBe("python:3.14-slim");
    // 3.12 has an official image: no fallback in public mode
    expect(choosePythonRuntime({ pin: { from: ".python-version", version: "3.12" } }, PUBLIC.python).notes).toEqual([
      "Python: .python-version 3.12; using python:3.12-slim",
    ]);
  });

  it("a team's own image is the only one: a mismatch is said, and built with", () => {
    const r = choosePythonRuntime({ pin: { from: ".python-version", version: "3.14" } }, "registry.example/team/python:3.12");
    expect(r.image).toBe("registry.example/team/python:3.12");
    expect(r.notes).toEqual([
      "Python: .python-version 3.14, but registry.example/team/python:3.12 has only Python 3.12: building with Python 3.12",
    ]);
    expect(isFallbackNote(r.notes[0] as string)).toBe(true);
  });
});

describe("Node: the local catalogue (images.json)", () => {
  const pkg = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({ name: "web", dependencies: { next: "15.5.0", react: "19.1.0", "react-dom": "19.1.0" }, ...extra });
  const cases: Array<{ name: string; files: Record<string, string | null>; from: string; note: string; fallback?: boolean }> = [
    { name: "nothing requested", files: {}, from: NODE["22"], note: "Node: no engines.node or .nvmrc; using platform-local/node:22" },
    { name: ".nvmrc 24", files: { ".nvmrc": "24\n" }, from: NODE["24"], note: `Node: .nvmrc "24"; using ${NODE["24"]}` },
    { name: ".nvmrc v20.11.1", files: { ".nvmrc": "v20.11.1\n" }, from: NODE["20"], note: `Node: .nvmrc "v20.11.1"; using ${NODE["20"]}` },
    {
      name: ".node-version",
      files: { ".node-version": "24.1.0\n" },
      from: NODE["24"],
      note: `Node: .node-version "24.1.0"; using ${NODE["24"]}`,
    },
    { name: "lts/iron", files: { ".nvmrc": "lts/iron\n" }, from: NODE["20"], note: `Node: .nvmrc "lts/iron"; using ${NODE["20"]}` },
    { name: "lts/*", files: { ".nvmrc": "lts/*\n" }, from: NODE["24"], note: `Node: .nvmrc "lts/*"; using ${NODE["24"]}` },
    { name: "node: the newest", files: { ".nvmrc": "node\n" }, from: NODE["24"], note: `Node: .nvmrc "node"; using ${NODE["24"]}` },
    {
      name: "volta",
      files: { "package.json": pkg({ volta: { node: "20.11.1" } }) },
      from: NODE["20"],
      note: `Node: package.json volta.node "20.11.1"; using ${NODE["20"]}`,
    },
    {
      name: "engines that admit the default",
      files: { "package.json": pkg({ engines: { node: ">=20" } }) },
      from: NODE["22"],
      note: 'Node: engines.node ">=20"; platform-local/node:22 has Node 22',
    },
    {
      name: "engines past the default: the newest",
      files: { "package.json": pkg({ engines: { node: ">=23" } }) },
      from: NODE["24"],
      note: `Node: engines.node ">=23"; using ${NODE["24"]}, the newest Node here that it admits (not the default 22)`,
    },
    {
      name: "engines ^20.11",
      files: { "package.json": pkg({ engines: { node: "^20.11" } }) },
      from: NODE["20"],
      note: `Node: engines.node "^20.11"; using ${NODE["20"]}, the newest Node here that it admits (not the default 22)`,
    },
    {
      name: "the pin wins over engines",
      files: { ".nvmrc": "24", "package.json": pkg({ engines: { node: ">=20" } }) },
      from: NODE["24"],
      note: `Node: .nvmrc "24"; using ${NODE["24"]}`,
    },
    {
      name: "an unreadable .nvmrc leaves it to engines",
      files: { ".nvmrc": "system", "package.json": pkg({ engines: { node: "^20" } }) },
      from: NODE["20"],
      note: `Node: could not read .nvmrc "system"; engines.node "^20"; using ${NODE["20"]}, the newest Node here that it admits (not the default 22)`,
      fallback: true,
    },
    {
      name: "Node 18: the nearest newer",
      files: { ".nvmrc": "18" },
      from: NODE["20"],
      note: `Node: .nvmrc "18", but no image here has Node 18 (there are 20, 22, 24): building with Node 20 (${NODE["20"]}), the nearest`,
      fallback: true,
    },
  ];

  it.each(cases)("$name", ({ files, from, note, fallback }) => {
    const recipe = buildNextjsRecipe(snapshot({ "package.json": pkg(), "package-lock.json": null, ...files }), LOCAL);
    expect(stage(recipe.dockerfile, 0)[0]).toBe(`FROM ${from} AS build`);
    expect(stage(recipe.dockerfile, 1)[0]).toBe(`FROM ${from}`);
    expect(recipe.baseImage).toBe(from);
    expect(recipe.summary.runtime).toBe(note);
    expect(recipe.summary.fallbacks.includes(note)).toBe(fallback === true);
  });

  it("public mode takes the official tag", () => {
    expect(chooseNodeRuntime({ pin: { from: ".nvmrc", text: "24" } }, "node:22-slim").image).toBe("node:24-slim");
    expect(chooseNodeRuntime({ range: { from: "engines.node", range: "20.x" } }, "node:22-slim").image).toBe("node:20-slim");
  });
});
