import { describe, expect, it } from "vitest";
import { buildFastapiRecipe, RecipeError, type SourceSnapshot } from "../../../../src/plan/recipes/index.js";
import { VisibleError } from "../../../../src/errors.js";
import { POETRY_EXPORT_VERSION, POETRY_VERSION, UV_VERSION } from "../../../../src/plan/recipes/tool-versions.js";
import { LOCAL, PUBLIC, snapshot, stage } from "./snapshot.js";

const MAIN = "from fastapi import FastAPI\n\napp = FastAPI()\n";
const REQS = "fastapi==0.165.0\nuvicorn[standard]==0.54.0\n";
const UV_PYPROJECT =
  '[project]\nname = "svc"\nversion = "1.0.0"\nrequires-python = ">=3.11"\ndependencies = [\n  "fastapi==0.165.0",\n  "uvicorn[standard]==0.54.0",\n]\n';
const POETRY_PYPROJECT =
  '[tool.poetry]\nname = "svc"\npackage-mode = false\n\n[tool.poetry.dependencies]\npython = "^3.11"\nfastapi = "^0.165"\nuvicorn = { version = "^0.54", extras = ["standard"] }\n';

function errorOf(fn: () => unknown): RecipeError {
  try {
    fn();
  } catch (e) {
    if (e instanceof RecipeError) return e;
    throw e;
  }
  throw new Error("expected a RecipeError");
}

describe("buildFastapiRecipe: dependency layouts", () => {
  const cases: Array<{
    name: string;
    src: SourceSnapshot;
    note: RegExp;
    /** Copied alone before the install, in order. */
    manifests: string[];
    install: RegExp;
    /** A step after the code is copied (installing the project itself). */
    project?: RegExp;
  }> = [
    {
      name: "requirements.txt",
      src: snapshot({ "requirements.txt": REQS, "main.py": MAIN }),
      note: /^requirements\.txt: installing with pip$/,
      manifests: ["requirements.txt"],
      install: /python3 -m venv \/opt\/venv && \/opt\/venv\/bin\/pip install -r requirements\.txt/,
    },
    {
      name: "requirements.txt including other files",
      src: snapshot({
        "requirements.txt": "-r requirements/base.txt\n-c constraints.txt\n",
        "requirements/base.txt": REQS,
        "constraints.txt": "",
        "main.py": MAIN,
      }),
      note: /with requirements\/base\.txt, constraints\.txt/,
      manifests: ["requirements.txt", "requirements/base.txt", "constraints.txt"],
      install: /pip install -r requirements\.txt/,
    },
    {
      name: "requirements.txt installing the project (-e .)",
      src: snapshot({
        "requirements.txt": `${REQS}-e .\n`,
        "main.py": MAIN,
        "pyproject.toml": '[build-system]\nrequires = ["hatchling"]\n',
      }),
      note: /installs a local path/,
      manifests: [],
      install: /pip install -r requirements\.txt/,
    },
    {
      name: "pyproject.toml + uv.lock, an application",
      src: snapshot({ "pyproject.toml": UV_PYPROJECT, "uv.lock": null, "main.py": MAIN }),
      note: /^uv\.lock: installing with uv sync --frozen --no-dev$/,
      manifests: ["pyproject.toml", "uv.lock"],
      install: /\/opt\/tools\/bin\/uv sync --frozen --no-dev --no-install-project/,
    },
    {
      name: "pyproject.toml + uv.lock, a package",
      src: snapshot({
        "pyproject.toml": `${UV_PYPROJECT}\n[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n`,
        "uv.lock": null,
        "src/svc/__init__.py": "",
        "src/svc/main.py": MAIN,
      }),
      note: /and the project as a package/,
      manifests: ["pyproject.toml", "uv.lock"],
      install: /uv sync --frozen --no-dev --no-install-project/,
      project: /uv sync --frozen --no-dev --no-editable --inexact/,
    },
    {
      name: "pyproject.toml + poetry.lock",
      src: snapshot({ "pyproject.toml": POETRY_PYPROJECT, "poetry.lock": null, "main.py": MAIN }),
      note: /^poetry\.lock: installing with poetry export --only main \(exact versions and hashes\), then pip install$/,
      manifests: ["pyproject.toml", "poetry.lock"],
      install:
        /python3 -m venv \/opt\/venv && \/opt\/tools\/bin\/poetry export --only main --format requirements\.txt --output (\S+) && \/opt\/venv\/bin\/pip install --no-deps -r \1/,
    },
    {
      name: "pyproject.toml ([tool.poetry]) without a lockfile",
      src: snapshot({ "pyproject.toml": POETRY_PYPROJECT, "main.py": MAIN }),
      note: /without poetry\.lock: poetry resolves at build time/,
      manifests: ["pyproject.toml"],
      install: /poetry install --only main --no-root/,
    },
    {
      name: "pyproject.toml (PEP 621) without a lockfile",
      src: snapshot({ "pyproject.toml": UV_PYPROJECT, "main.py": MAIN }),
      note: /without a lockfile: installing \[project\] dependencies with uv pip/,
      manifests: ["pyproject.toml"],
      install: /uv venv \/opt\/venv && \/opt\/tools\/bin\/uv pip install --python \/opt\/venv\/bin\/python -r pyproject\.toml/,
    },
    {
      name: "pyproject.toml (PEP 621) with a build system, without a lockfile: the package is installed too",
      src: snapshot({
        "pyproject.toml": `${UV_PYPROJECT}\n[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n`,
        "main.py": MAIN,
      }),
      note: /without a lockfile: installing \[project\] dependencies with uv pip/,
      manifests: ["pyproject.toml"],
      install: /uv pip install --python \/opt\/venv\/bin\/python -r pyproject\.toml/,
      project: /uv pip install --python \/opt\/venv\/bin\/python --no-deps \./,
    },
    {
      name: "pyproject.toml with a build system and [tool.uv] package = false, without a lockfile: not installed as a package",
      src: snapshot({
        "pyproject.toml": `${UV_PYPROJECT}\n[tool.uv]\npackage = false\n\n[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n`,
        "main.py": MAIN,
      }),
      note: /^\[tool\.uv\] package = false: the project itself is not installed as a package$/,
      manifests: ["pyproject.toml"],
      install: /uv pip install --python \/opt\/venv\/bin\/python -r pyproject\.toml/,
    },
    {
      name: "uv.lock wins over requirements.txt",
      src: snapshot({ "pyproject.toml": UV_PYPROJECT, "uv.lock": null, "requirements.txt": REQS, "main.py": MAIN }),
      note: /^uv\.lock:/,
      manifests: ["pyproject.toml", "uv.lock"],
      install: /uv sync --frozen/,
    },
    {
      name: "pyproject.toml with tool settings only, beside requirements.txt",
      src: snapshot({ "pyproject.toml": "[tool.ruff]\nline-length = 100\n", "requirements.txt": REQS, "main.py": MAIN }),
      note: /^requirements\.txt: installing with pip$/,
      manifests: ["requirements.txt"],
      install: /pip install -r requirements\.txt/,
    },
  ];

  it.each(cases)("$name", ({ src, note, manifests, install, project }) => {
    const recipe = buildFastapiRecipe(src, LOCAL);
    expect(
      recipe.notes.some((n) => note.test(n)),
      recipe.notes.join("\n"),
    ).toBe(true);
    const build = stage(recipe.dockerfile, 0);
    const installAt = build.findIndex((l) => install.test(l));
    expect(installAt, recipe.dockerfile).toBeGreaterThan(0);
    // Manifests alone, then the install: a code change leaves the install layer cached.
    const copies = build.slice(0, installAt).filter((l) => l.startsWith("COPY "));
    const expected = manifests.length > 0 ? manifests.map((m) => `COPY ${m} ${m}`) : ["COPY . ."];
    expect(copies).toEqual(expected);
    if (project) {
      const projectAt = build.findIndex((l) => project.test(l));
      expect(projectAt).toBeGreaterThan(installAt);
      expect(build.slice(installAt, projectAt)).toContain("COPY . .");
    } else {
      expect(build.slice(installAt + 1).some((l) => l === "COPY . .")).toBe(false);
    }
  });

  it("installs uv and poetry at their pinned versions, and only in the build stage", () => {
    const installs = cases.flatMap(({ src }) =>
      stage(buildFastapiRecipe(src, LOCAL).dockerfile, 0).filter((l) => l.includes("/opt/tools/bin/pip install")),
    );
    const tools = new Set(installs.map((l) => /pip install ([^']+)'$/.exec(l)?.[1]));
    expect(tools).toEqual(
      new Set([
        `uv==${UV_VERSION}`,
        `poetry==${POETRY_VERSION} poetry-plugin-export==${POETRY_EXPORT_VERSION}`,
        `poetry==${POETRY_VERSION}`,
      ]),
    );
  });

  it.each(cases)("$name: house rules of the Dockerfile", ({ src }) => {
    const recipe = buildFastapiRecipe(src, LOCAL);
    const text = recipe.dockerfile;
    expect(text).not.toMatch(/^# syntax/m);
    expect(text).not.toMatch(/ca-certificates\.crt|COPY .*secrets/);
    // Every step that reaches a package index mounts the CA secret, and only those; the
    // dependency installs also source the service's variables (the platform-env secret).
    const ca =
      "if \\[ -s \\/run\\/secrets\\/ca \\]; then export PIP_CERT=\\/run\\/secrets\\/ca SSL_CERT_FILE=\\/run\\/secrets\\/ca NODE_EXTRA_CA_CERTS=\\/run\\/secrets\\/ca REQUESTS_CA_BUNDLE=\\/run\\/secrets\\/ca UV_NATIVE_TLS=1; fi; ";
    const env = "if \\[ -f \\/run\\/secrets\\/platform-env \\]; then set -a; \\. \\/run\\/secrets\\/platform-env; set \\+a; fi; ";
    for (const line of text.split("\n").filter((l) => !l.startsWith("#") && /pip install|uv sync|uv pip|poetry install/.test(l))) {
      const withEnv = /sync --frozen|-r (requirements\.txt|pyproject\.toml)|poetry install|poetry export|--no-deps \./.test(line);
      expect(line).toMatch(
        new RegExp(
          withEnv
            ? `^RUN --mount=type=secret,id=ca --mount=type=secret,id=platform-env sh -c '${env}${ca}`
            : `^RUN --mount=type=secret,id=ca sh -c '${ca}`,
        ),
      );
    }
    // Variables are never written into the image: no ENV or ARG of them.
    expect(text).not.toMatch(/^ARG /m);
    const final = stage(text, 1);
    expect(final[0]).toBe("FROM platform-local/python:3.11");
    expect(final).toContain("COPY --from=build /opt/venv /opt/venv");
    // The code is the app user's (apps write logs and uploads beside it); the venv stays root's.
    expect(final).toContain("COPY --chown=app:app . .");
    expect(final.indexOf("COPY --from=build /opt/venv /opt/venv")).toBeLessThan(final.indexOf("COPY --chown=app:app . ."));
    expect(final).toContain("USER app");
    expect(final).toContain("EXPOSE 8080");
    expect(final).toContain('ENV FORWARDED_ALLOW_IPS="*"');
    expect(final.at(-1)).toMatch(/^CMD exec uvicorn \S+ --host 0\.0\.0\.0 --port "\$PORT"/);
    expect(final.join("\n")).not.toContain("/opt/tools");
    expect(recipe.port).toBe(8080);
    expect(recipe.start).toEqual(["/bin/sh", "-c", final.at(-1)!.slice("CMD ".length)]);
  });
});

describe("buildFastapiRecipe: finding the app", () => {
  const cases: Array<{ name: string; files: Record<string, string | null>; start: string }> = [
    { name: "main.py", files: { "main.py": MAIN }, start: "uvicorn main:app" },
    { name: "app.py", files: { "app.py": MAIN }, start: "uvicorn app:app" },
    { name: "api.py with `api`", files: { "api.py": "import fastapi\napi = fastapi.FastAPI(title='x')\n" }, start: "uvicorn api:api" },
    { name: "app/main.py in a package", files: { "app/__init__.py": "", "app/main.py": MAIN }, start: "uvicorn app.main:app" },
    {
      name: "app/main.py, not a package",
      files: { "app/main.py": MAIN },
      start: 'uvicorn main:app --host 0.0.0.0 --port "$PORT" --app-dir app',
    },
    { name: "app/api.py", files: { "app/__init__.py": "", "app/api.py": MAIN }, start: "uvicorn app.api:app" },
    { name: "src/main.py", files: { "src/main.py": MAIN }, start: 'uvicorn main:app --host 0.0.0.0 --port "$PORT" --app-dir src' },
    {
      name: "src/<pkg>/main.py",
      files: { "src/shop/__init__.py": "", "src/shop/main.py": MAIN },
      start: 'uvicorn shop.main:app --host 0.0.0.0 --port "$PORT" --app-dir src',
    },
    { name: "main.py first", files: { "main.py": MAIN, "app.py": MAIN }, start: "uvicorn main:app" },
    { name: "main.py without an app is skipped", files: { "main.py": "print('hi')\n", "app.py": MAIN }, start: "uvicorn app:app" },
    {
      name: "app preferred over other names",
      files: { "main.py": "from fastapi import FastAPI\nadmin = FastAPI()\napp = FastAPI()\n" },
      start: "uvicorn main:app",
    },
    {
      name: "any name when alone",
      files: { "main.py": "from fastapi import FastAPI\napplication = FastAPI()\n" },
      start: "uvicorn main:application",
    },
    {
      name: "annotated assignment",
      files: { "main.py": "from fastapi import FastAPI\napp: FastAPI = FastAPI(title='t')\n" },
      start: "uvicorn main:app",
    },
    {
      name: "factory",
      files: { "main.py": "from fastapi import FastAPI\ndef create_app() -> FastAPI:\n    return FastAPI()\n\napp = create_app()\n" },
      start: "uvicorn main:app",
    },
    { name: "another top-level module", files: { "server.py": MAIN }, start: "uvicorn server:app" },
    {
      name: "[tool.fastapi] entrypoint",
      files: {
        "pyproject.toml": '[project]\nname="x"\ndependencies=["fastapi[standard]"]\n\n[tool.fastapi]\nentrypoint = "svc.web:app"\n',
        "svc/__init__.py": "",
        "svc/web.py": MAIN,
      },
      start: "uvicorn svc.web:app --host",
    },
    {
      name: "[tool.fastapi] entrypoint in src/",
      files: {
        "pyproject.toml": '[project]\nname="x"\ndependencies=["fastapi[standard]"]\n\n[tool.fastapi]\nentrypoint = "svc.web:app"\n',
        "src/svc/__init__.py": "",
        "src/svc/web.py": MAIN,
      },
      start: 'uvicorn svc.web:app --host 0.0.0.0 --port "$PORT" --app-dir src',
    },
  ];

  it.each(cases)("$name", ({ files, start }) => {
    const withDeps = files["pyproject.toml"] ? files : { "requirements.txt": REQS, ...files };
    const recipe = buildFastapiRecipe(snapshot(withDeps), LOCAL);
    expect(recipe.start[2]).toContain(`exec ${start}`);
  });
});

describe("buildFastapiRecipe: errors", () => {
  const cases: Array<{ name: string; files: Record<string, string | null>; message: string; hint: RegExp }> = [
    {
      name: "no app",
      files: { "requirements.txt": REQS, "main.py": "print('hello')\n" },
      message: "no FastAPI app found (looked in main.py)",
      hint: /app = FastAPI\(\)/,
    },
    {
      name: "no Python at all",
      files: { "requirements.txt": REQS },
      message: "no FastAPI app found (found no Python modules)",
      hint: /main\.py/,
    },
    {
      name: "no manifest",
      files: { "main.py": MAIN },
      message: "no requirements.txt or pyproject.toml in the service directory",
      hint: /fastapi and uvicorn/,
    },
    {
      name: "Pipfile only",
      files: { "main.py": MAIN, Pipfile: "[packages]\nfastapi = '*'\n" },
      message: "no requirements.txt or pyproject.toml in the service directory",
      hint: /pipenv requirements > requirements\.txt/,
    },
    {
      name: "pyproject.toml without dependencies",
      files: { "main.py": MAIN, "pyproject.toml": "[tool.black]\n" },
      message:
        "pyproject.toml declares no dependencies ([project] dependencies or [tool.poetry.dependencies]) and there is no requirements.txt",
      hint: /requirements\.txt or pyproject\.toml/,
    },
    {
      name: "missing included requirements",
      files: { "main.py": MAIN, "requirements.txt": "-r ../shared.txt\n" },
      message: "requirements.txt includes shared.txt, which is not in the service directory",
      hint: /inside the service's source directory/,
    },
    {
      name: "bad entrypoint",
      files: { "pyproject.toml": '[project]\nname="x"\ndependencies=["fastapi"]\n[tool.fastapi]\nentrypoint = "main"\n', "main.py": MAIN },
      message: 'pyproject.toml [tool.fastapi] entrypoint "main" is not of the form "module:variable"',
      hint: /app\.main:app/,
    },
  ];

  it.each(cases)("$name", ({ files, message, hint }) => {
    const error = errorOf(() => buildFastapiRecipe(snapshot(files), LOCAL));
    expect(error.message).toBe(message);
    expect(error.hint).toMatch(hint);
  });

  it("is a VisibleError whose details carry the hint", () => {
    const error = errorOf(() => buildFastapiRecipe(snapshot({ "main.py": MAIN }), LOCAL));
    expect(error).toBeInstanceOf(VisibleError);
    expect(error.details).toEqual([`hint: ${error.hint}`]);
  });
});

describe("buildFastapiRecipe: uvicorn and the Python version", () => {
  it("adds uvicorn when no dependency brings it", () => {
    const recipe = buildFastapiRecipe(snapshot({ "requirements.txt": "fastapi==0.165.0\n", "main.py": MAIN }), LOCAL);
    expect(recipe.dockerfile).toContain(`/opt/venv/bin/pip install "uvicorn[standard]"`);
    expect(recipe.notes).toContain(
      "uvicorn is not among the declared dependencies: adding uvicorn[standard] (unpinned; declare it to pin it)",
    );
  });

  it("adds none for a start that does not run uvicorn (a Celery worker), and adds it for one that does", () => {
    const files = { "requirements.txt": "celery[redis]>=5.3\n", "app/tasks.py": "from celery import Celery\n" };
    const worker = buildFastapiRecipe(snapshot(files), LOCAL, { start: "celery -A app.tasks worker" });
    expect(worker.dockerfile).not.toContain('install "uvicorn');
    expect(worker.notes.join("\n")).not.toContain("uvicorn is not among");
    const api = buildFastapiRecipe(snapshot(files), LOCAL, { start: ["uvicorn", "app.main:app"] });
    expect(api.dockerfile).toContain('install "uvicorn[standard]"');
  });

  it.each(["fastapi[standard]==0.165.0", "FastAPI[all]", "uvicorn", "uvicorn[standard]>=0.30"])("%s brings uvicorn", (line) => {
    const recipe = buildFastapiRecipe(snapshot({ "requirements.txt": `${line}\n`, "main.py": MAIN }), LOCAL);
    expect(recipe.dockerfile).not.toContain('install "uvicorn');
  });

  it("adds uvicorn with uv pip into a uv venv", () => {
    const pyproject = '[project]\nname = "svc"\ndependencies = ["fastapi"]\n';
    const recipe = buildFastapiRecipe(snapshot({ "pyproject.toml": pyproject, "uv.lock": null, "main.py": MAIN }), LOCAL);
    expect(recipe.dockerfile).toContain(`/opt/tools/bin/uv pip install --python /opt/venv/bin/python "uvicorn[standard]"`);
  });

  const versions: Array<{ name: string; files: Record<string, string | null>; images: typeof LOCAL; from: string; note: string }> = [
    {
      name: "nothing requested",
      files: {},
      images: LOCAL,
      from: "platform-local/python:3.11",
      note: "Python: no .python-version or requires-python; using platform-local/python:3.11",
    },
    {
      name: ".python-version matches",
      files: { ".python-version": "3.11\n" },
      images: LOCAL,
      from: "platform-local/python:3.11",
      note: "Python: .python-version 3.11; platform-local/python:3.11 has Python 3.11",
    },
    {
      name: ".python-version with a patch",
      files: { ".python-version": "3.11.9\n" },
      images: LOCAL,
      from: "platform-local/python:3.11",
      note: "Python: .python-version 3.11; platform-local/python:3.11 has Python 3.11",
    },
    {
      name: ".python-version the local image lacks",
      files: { ".python-version": "3.12\n" },
      images: LOCAL,
      from: "platform-local/python:3.11",
      note: "Python: .python-version 3.12, but platform-local/python:3.11 has only Python 3.11: building with Python 3.11",
    },
    {
      name: ".python-version with a public image",
      files: { ".python-version": "3.12\n" },
      images: PUBLIC,
      from: "python:3.12-slim",
      note: "Python: .python-version 3.12; using python:3.12-slim",
    },
    {
      name: "requires-python the base satisfies",
      files: { "pyproject.toml": '[project]\nname="x"\nrequires-python = ">=3.10"\n' },
      images: LOCAL,
      from: "platform-local/python:3.11",
      note: 'Python: requires-python ">=3.10"; platform-local/python:3.11 has Python 3.11',
    },
    {
      name: "requires-python with a public image",
      files: { "pyproject.toml": '[project]\nname="x"\nrequires-python = ">=3.12,<3.14"\n' },
      images: PUBLIC,
      from: "python:3.13-slim",
      note: 'Python: requires-python ">=3.12,<3.14"; using python:3.13-slim, the newest Python here that it admits (not the default 3.11)',
    },
    {
      name: "requires-python the local image cannot meet",
      files: { "pyproject.toml": '[project]\nname="x"\nrequires-python = ">=3.12"\n' },
      images: LOCAL,
      from: "platform-local/python:3.11",
      note: 'Python: requires-python ">=3.12", but platform-local/python:3.11 has only Python 3.11: building with Python 3.11',
    },
    {
      name: "Poetry's python constraint",
      files: { "pyproject.toml": POETRY_PYPROJECT.replace("^3.11", "~3.12"), "poetry.lock": null },
      images: PUBLIC,
      from: "python:3.12-slim",
      note: 'Python: tool.poetry python "~3.12"; using python:3.12-slim, the newest Python here that it admits (not the default 3.11)',
    },
    {
      name: ".python-version wins over requires-python",
      files: { ".python-version": "3.11", "pyproject.toml": '[project]\nname="x"\nrequires-python = ">=3.9"\n' },
      images: LOCAL,
      from: "platform-local/python:3.11",
      note: "Python: .python-version 3.11; platform-local/python:3.11 has Python 3.11",
    },
  ];

  it.each(versions)("$name", ({ files, images, from, note }) => {
    const recipe = buildFastapiRecipe(snapshot({ "requirements.txt": REQS, "main.py": MAIN, ...files }), images);
    expect(stage(recipe.dockerfile, 0)[0]).toBe(`FROM ${from} AS build`);
    expect(stage(recipe.dockerfile, 1)[0]).toBe(`FROM ${from}`);
    expect(recipe.notes).toContain(note);
  });
});

describe("buildFastapiRecipe: .dockerignore", () => {
  it("ignores local environments and keeps the service's own lines", () => {
    const recipe = buildFastapiRecipe(
      snapshot({ "requirements.txt": REQS, "main.py": MAIN, ".dockerignore": "data/\n!data/seed.json\n" }),
      LOCAL,
    );
    const lines = recipe.dockerignore.split("\n");
    for (const l of [".venv", "**/__pycache__", ".git", ".env", "data/", "!data/seed.json"]) expect(lines).toContain(l);
    expect(lines.indexOf("!data/seed.json")).toBeGreaterThan(lines.indexOf(".venv"));
  });
});

describe("buildFastapiRecipe: a migration whose tools sit in a dependency group", () => {
  const poetry =
    '[tool.poetry]\nname = "svc"\n[tool.poetry.dependencies]\npython = "^3.11"\nfastapi = "*"\n[tool.poetry.group.dev.dependencies]\nalembic = "*"\n';
  const uv = '[project]\nname = "svc"\ndependencies = ["fastapi"]\n[dependency-groups]\ndev = ["alembic"]\n';

  it("Poetry's dev group: a migrate stage exports every group; the service's image only the main one", () => {
    const recipe = buildFastapiRecipe(snapshot({ "pyproject.toml": poetry, "poetry.lock": null, "main.py": MAIN }), LOCAL, {
      migrate: true,
    });
    expect(recipe.migrateTarget).toBe("migrate");
    const stage = recipe.dockerfile.slice(recipe.dockerfile.indexOf("FROM build AS migrate"));
    expect(stage).toContain("poetry export --all-groups");
    expect(stage.split("\n").slice(0, 8).join("\n")).toContain("USER app");
    expect(recipe.dockerfile).toContain("poetry export --only main");
    expect(recipe.notes).toContain(
      "migrate: runs from a stage with every dependency group installed (dev); the service's image keeps only the runtime dependencies",
    );
    // the final stage copies the build stage's venv, never the migrate stage's
    expect(recipe.dockerfile).not.toMatch(/COPY --from=migrate/);
  });

  it("uv's dependency-groups: uv sync --all-groups in the migrate stage", () => {
    const recipe = buildFastapiRecipe(snapshot({ "pyproject.toml": uv, "uv.lock": null, "main.py": MAIN }), LOCAL, { migrate: true });
    expect(recipe.dockerfile).toContain("sync --frozen --inexact --all-groups --no-install-project");
    expect(recipe.migrateTarget).toBe("migrate");
  });

  it("no migrate stage without a migration, or without a group beside the runtime ones", () => {
    expect(buildFastapiRecipe(snapshot({ "pyproject.toml": uv, "uv.lock": null, "main.py": MAIN }), LOCAL).migrateTarget).toBeUndefined();
    const plain = '[project]\nname = "svc"\ndependencies = ["fastapi", "alembic"]\n';
    const recipe = buildFastapiRecipe(snapshot({ "pyproject.toml": plain, "uv.lock": null, "main.py": MAIN }), LOCAL, { migrate: true });
    expect(recipe.migrateTarget).toBeUndefined();
    expect(recipe.dockerfile).not.toContain("AS migrate");
  });
});
