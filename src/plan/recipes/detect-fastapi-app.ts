/**
 * Finds the FastAPI application the way `fastapi run` does, and a little further: its
 * well-known files, then src/<pkg>/ and <pkg>/ modules named main, app or api, then any
 * top-level module; in a file, the variable `app` (else `api`, else any) holding FastAPI(...),
 * an `app = create_app()` assignment, or a factory function (uvicorn --factory). The import
 * path comes from the enclosing packages. An explicit `[tool.fastapi] entrypoint` wins, as it
 * does for `fastapi run`; the service's `start` in platform.yml skips discovery altogether.
 * Found from the text, since nothing runs at plan time; when several files qualify, the note
 * names the others.
 */
import { RecipeError, type SourceSnapshot } from "./types.js";

export interface FastapiApp {
  /** The file that defines the app, e.g. "app/main.py" (absent for a declared entrypoint). */
  readonly file?: string;
  /** Import path of the module, e.g. "app.main". */
  readonly module: string;
  readonly variable: string;
  /** `variable` is a function that returns the app: uvicorn calls it (--factory). */
  readonly factory: boolean;
  /** Directory to put on sys.path (uvicorn --app-dir), "" for the service root. */
  readonly appDir: string;
  readonly note: string;
}

/** `fastapi run`'s own candidates first, then the usual src/ layouts. */
const PREFERRED = [
  "main.py",
  "app.py",
  "api.py",
  "app/main.py",
  "app/app.py",
  "app/api.py",
  "src/main.py",
  "src/app.py",
  "src/api.py",
  "src/app/main.py",
  "src/app/app.py",
  "src/app/api.py",
];
const STEMS = ["main", "app", "api"];
/** Top-level directories that hold tests, tooling or migrations, never the served app. */
const NOT_APP_DIRS = new Set(["src", "tests", "test", "docs", "scripts", "migrations", "alembic", "examples", "node_modules"]);

function stemRank(file: string): number {
  return STEMS.indexOf((file.split("/").pop() as string).slice(0, -3));
}

/**
 * Candidate files in search order: the preferred ones, src/<pkg>/{main,app,api}.py,
 * <pkg>/{main,app,api}.py (a package of its own at the root), then other top-level modules.
 */
export function listAppCandidates(files: readonly string[]): string[] {
  const present = new Set(files);
  const out = PREFERRED.filter((f) => present.has(f));
  const byStem = (a: string, b: string) => stemRank(a) - stemRank(b) || a.localeCompare(b);
  const srcPackages = files.filter((f) => /^src\/[^/]+\/[^/]+\.py$/.test(f) && stemRank(f) >= 0).sort(byStem);
  const rootPackages = files
    .filter((f) => /^[^/]+\/[^/]+\.py$/.test(f) && stemRank(f) >= 0 && !NOT_APP_DIRS.has(f.split("/")[0] as string))
    .sort(byStem);
  const topLevel = files.filter((f) => /^[^/]+\.py$/.test(f));
  for (const f of [...srcPackages, ...rootPackages, ...topLevel]) if (!out.includes(f)) out.push(f);
  return out;
}

export interface FoundApp {
  readonly variable: string;
  /** `app = FastAPI(...)` itself; else an assignment trusted by its name (`app = create_app()`). */
  readonly direct: boolean;
  /** A function that returns the app (uvicorn --factory), when the module has no app variable. */
  readonly factory?: boolean;
}

/** Names of app factories, as Flask and FastAPI projects usually call them. */
const FACTORY = /^def\s+(create_app|make_app|get_app|build_app|app_factory|get_application|create_application)\s*\(([^)]*)\)/m;

/** A factory uvicorn can call: every parameter has a default (or there are none). */
function callableWithoutArguments(params: string): boolean {
  return params
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p && p !== "*" && !p.startsWith("**") && !p.startsWith("*"))
    .every((p) => p.includes("="));
}

/**
 * Top-level assignments of FastAPI(...); then top-level `app`/`api` assignments of a call
 * (`app = create_app()`, also when the factory lives in another module); then a factory
 * function in a module that uses FastAPI.
 */
export function findAppVariable(text: string): FoundApp | undefined {
  const direct = [...text.matchAll(/^([A-Za-z_]\w*)\s*(?::[^=\n]+)?=\s*(?:fastapi\.)?FastAPI\s*\(/gm)].map((m) => m[1] as string);
  const pick = (names: string[]) => names.find((n) => n === "app") ?? names.find((n) => n === "api") ?? names[0];
  const found = pick(direct);
  if (found) return { variable: found, direct: true };
  const usesFastapi = /\bFastAPI\b/.test(text);
  // The usual names are trusted; other names would be a guess. A call needs no FastAPI in
  // the module itself: the factory is often imported from another one.
  const assigned = [
    ...text.matchAll(usesFastapi ? /^(app|api)\s*(?::[^=\n]+)?=(?!=)/gm : /^(app|api)\s*(?::[^=\n]+)?=\s*[A-Za-z_][\w.]*\(/gm),
  ].map((m) => m[1] as string);
  const assignedApp = pick(assigned);
  if (assignedApp) return { variable: assignedApp, direct: false };
  const factory = FACTORY.exec(text);
  if (usesFastapi && factory && callableWithoutArguments(factory[2] as string))
    return { variable: factory[1] as string, direct: false, factory: true };
  return undefined;
}

/** Import path of a file: the enclosing directories that are packages (with __init__.py) become dotted parts. */
export function toModulePath(file: string, files: readonly string[]): { module: string; appDir: string } {
  const present = new Set(files);
  const dirs = file.split("/");
  const stem = (dirs.pop() as string).replace(/\.py$/, "");
  const pkg: string[] = [];
  while (dirs.length > 0 && present.has(`${dirs.join("/")}/__init__.py`)) pkg.unshift(dirs.pop() as string);
  return { module: [...pkg, stem].join("."), appDir: dirs.join("/") };
}

function fromEntrypoint(entrypoint: string, files: readonly string[]): FastapiApp {
  const m = /^([A-Za-z_][\w.]*):([A-Za-z_]\w*)$/.exec(entrypoint.trim());
  if (!m) {
    throw new RecipeError(
      `pyproject.toml [tool.fastapi] entrypoint "${entrypoint}" is not of the form "module:variable"`,
      'write it like entrypoint = "app.main:app"',
    );
  }
  const module = m[1] as string;
  const variable = m[2] as string;
  const asPath = module.replace(/\./g, "/");
  // A src/ layout is imported from src/ unless the module also exists at the root.
  const inSrc =
    !files.some((f) => f === `${asPath}.py` || f.startsWith(`${asPath}/`)) &&
    files.some((f) => f === `src/${asPath}.py` || f.startsWith(`src/${asPath}/`));
  return {
    module,
    variable,
    factory: false,
    appDir: inSrc ? "src" : "",
    note: `app: ${module}:${variable} from pyproject.toml [tool.fastapi] entrypoint`,
  };
}

function describe(file: string, found: FoundApp): string {
  if (found.factory) return `${file} defines the factory ${found.variable}() (run with uvicorn --factory)`;
  return found.direct
    ? `${file} defines ${found.variable} = FastAPI(...)`
    : `${file} assigns ${found.variable} (assumed to be the FastAPI app)`;
}

export function detectFastapiApp(src: SourceSnapshot, entrypoint?: string): FastapiApp {
  if (entrypoint) return fromEntrypoint(entrypoint, src.files);
  const candidates = listAppCandidates(src.files);
  const apps: Array<{ file: string; found: FoundApp }> = [];
  for (const file of candidates) {
    const text = src.read(file);
    const found = text === undefined ? undefined : findAppVariable(text);
    if (found) apps.push({ file, found });
  }
  // A module that defines FastAPI(...) beats one that only assigns or builds it elsewhere.
  const chosen = apps.find((a) => a.found.direct) ?? apps[0];
  if (chosen) {
    const { file, found } = chosen;
    const { module, appDir } = toModulePath(file, src.files);
    const others = apps.filter((a) => a !== chosen).map((a) => a.file);
    const choice = others.length
      ? `; also found ${others.slice(0, 4).join(", ")}${others.length > 4 ? ", ..." : ""} (set start or [tool.fastapi] entrypoint to choose)`
      : "";
    return {
      file,
      module,
      variable: found.variable,
      appDir,
      factory: found.factory === true,
      note: `app: ${describe(file, found)}; serving ${module}:${found.variable}${choice}`,
    };
  }
  const looked =
    candidates.length > 0
      ? `looked in ${candidates.slice(0, 8).join(", ")}${candidates.length > 8 ? ", ..." : ""}`
      : "found no Python modules";
  throw new RecipeError(
    `no FastAPI app found (${looked})`,
    'define the app as `app = FastAPI()` in main.py (or app.py, api.py, app/main.py, <package>/app.py), set [tool.fastapi] entrypoint = "module:app" in pyproject.toml, or give the service a start command in platform.yml',
  );
}
