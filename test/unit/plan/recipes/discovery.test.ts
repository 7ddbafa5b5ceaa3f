import { describe, expect, it } from "vitest";
import { buildFastapiRecipe, buildNextjsRecipe } from "../../../../src/plan/recipes/index.js";
import { findAppVariable, listAppCandidates } from "../../../../src/plan/recipes/detect-fastapi-app.js";
import { toStartCommand } from "../../../../src/plan/start-command.js";
import { LOCAL, snapshot, stage } from "./snapshot.js";

const REQS = "fastapi==0.165.0\nuvicorn[standard]==0.38.0\n";
const MAIN = "from fastapi import FastAPI\n\napp = FastAPI()\n";
const FACTORY = "from fastapi import FastAPI\n\ndef create_app() -> FastAPI:\n    app = FastAPI()\n    return app\n";

describe("FastAPI discovery beyond the fixed list", () => {
  const cases: Array<{ name: string; files: Record<string, string | null>; start: string; note?: RegExp }> = [
    {
      name: "<package>/app.py",
      files: { "service/__init__.py": "", "service/app.py": MAIN },
      start: "exec uvicorn service.app:app --host",
    },
    {
      name: "<package>/main.py without __init__.py",
      files: { "backend/main.py": MAIN },
      start: 'exec uvicorn main:app --host 0.0.0.0 --port "$PORT" --app-dir backend',
    },
    { name: "src/<pkg>/main.py", files: { "src/shop/__init__.py": "", "src/shop/main.py": MAIN }, start: "--app-dir src" },
    {
      name: "app = create_app() with the factory in another module",
      files: {
        "service/__init__.py": "",
        "service/factory.py": FACTORY,
        "service/app.py": "from service.factory import create_app\n\napp = create_app()\n",
      },
      start: "exec uvicorn service.app:app --host",
      note: /service\/app\.py assigns app \(assumed to be the FastAPI app\)/,
    },
    {
      name: "a factory function only: uvicorn --factory",
      files: { "service/__init__.py": "", "service/app.py": FACTORY },
      start: "exec uvicorn service.app:create_app --factory --host",
      note: /defines the factory create_app\(\) \(run with uvicorn --factory\)/,
    },
    {
      name: "a factory with defaults",
      files: { "main.py": "from fastapi import FastAPI\ndef create_app(settings=None):\n    return FastAPI()\n" },
      start: "main:create_app --factory",
    },
    {
      name: "tests/ is not the app",
      files: { "tests/app.py": MAIN, "service/app.py": MAIN },
      start: 'uvicorn app:app --host 0.0.0.0 --port "$PORT" --app-dir service',
    },
  ];
  it.each(cases)("$name", ({ files, start, note }) => {
    const recipe = buildFastapiRecipe(snapshot({ "requirements.txt": REQS, ...files }), LOCAL);
    expect(recipe.start[2]).toContain(start);
    if (note) expect(recipe.notes.join("\n")).toMatch(note);
  });

  it("states the choice when several modules qualify", () => {
    const recipe = buildFastapiRecipe(
      snapshot({ "requirements.txt": REQS, "main.py": MAIN, "admin/__init__.py": "", "admin/app.py": MAIN }),
      LOCAL,
    );
    expect(recipe.notes).toContain(
      "app: main.py defines app = FastAPI(...); serving main:app; also found admin/app.py (set start or [tool.fastapi] entrypoint to choose)",
    );
  });

  it("prefers a module that defines FastAPI(...) over one that only assigns", () => {
    const recipe = buildFastapiRecipe(
      snapshot({ "requirements.txt": REQS, "main.py": "from x import make\napp = make()\n", "web/__init__.py": "", "web/app.py": MAIN }),
      LOCAL,
    );
    expect(recipe.start[2]).toContain("uvicorn web.app:app");
  });

  it("lists root packages after fastapi run's own files", () => {
    expect(listAppCandidates(["api/app.py", "main.py", "svc/main.py", "tests/main.py", "tool.py"])).toEqual([
      "main.py",
      "svc/main.py",
      "api/app.py",
      "tool.py",
    ]);
  });

  it("a factory that needs arguments is not called by uvicorn", () => {
    expect(findAppVariable("from fastapi import FastAPI\ndef create_app(settings):\n    return FastAPI()\n")).toBeUndefined();
  });
});

describe("platform.yml start", () => {
  it("replaces discovery in a FastAPI recipe: no app needed", () => {
    const recipe = buildFastapiRecipe(snapshot({ "requirements.txt": REQS, "weird/entry.py": "import fastapi\n" }), LOCAL, {
      start: 'python -m weird.entry --port "$PORT"',
    });
    expect(recipe.start).toEqual(["/bin/sh", "-c", 'exec python -m weird.entry --port "$PORT"']);
    expect(stage(recipe.dockerfile, 1).at(-1)).toBe(`CMD ${JSON.stringify(recipe.start)}`);
    expect(recipe.notes).toContain('start: exec python -m weird.entry --port "$PORT" (platform.yml start)');
  });

  it("replaces the server command of a Next.js recipe", () => {
    const pkg = JSON.stringify({ scripts: { build: "next build" }, dependencies: { next: "15.5.29" } });
    const recipe = buildNextjsRecipe(snapshot({ "package.json": pkg, "package-lock.json": null }), LOCAL, {
      start: ["node", "custom-server.js"],
    });
    expect(recipe.start).toEqual(["node", "custom-server.js"]);
    expect(stage(recipe.dockerfile, 1).at(-1)).toBe('CMD ["node","custom-server.js"]');
  });

  it.each([
    ["uvicorn app:app", ["/bin/sh", "-c", "exec uvicorn app:app"]],
    ["cd src && uvicorn app:app", ["/bin/sh", "-c", "cd src && uvicorn app:app"]],
    ["FOO=1 uvicorn app:app", ["/bin/sh", "-c", "FOO=1 uvicorn app:app"]],
    ["exec gunicorn x", ["/bin/sh", "-c", "exec gunicorn x"]],
  ])("string %j runs with sh -c", (start, command) => {
    expect(toStartCommand(start)).toEqual(command);
  });

  it("a list runs as it is", () => {
    expect(toStartCommand(["node", "server.js"])).toEqual(["node", "server.js"]);
  });
});
