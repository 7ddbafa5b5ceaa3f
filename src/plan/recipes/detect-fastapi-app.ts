/**
 * Finds the FastAPI application the way `fastapi run` does: the first of its well-known
 * files that defines the app, the variable `app` (else `api`, else any) holding FastAPI(...),
 * and the import path from the enclosing packages. An explicit `[tool.fastapi] entrypoint`
 * wins, as it does for `fastapi run`. Found from the text, since nothing runs at plan time.
 */
import { RecipeError, type SourceSnapshot } from "./types.js";

export interface FastapiApp {
  /** The file that defines the app, e.g. "app/main.py" (absent for a declared entrypoint). */
  readonly file?: string;
  /** Import path of the module, e.g. "app.main". */
  readonly module: string;
  readonly variable: string;
  /** Directory to put on sys.path (uvicorn --app-dir), "" for the service root. */
  readonly appDir: string;
  readonly note: string;
}

/** `fastapi run`'s own candidates first, then the usual src/ layouts. */
const PREFERRED = [
  "main.py", "app.py", "api.py",
  "app/main.py", "app/app.py", "app/api.py",
  "src/main.py", "src/app.py", "src/api.py",
  "src/app/main.py", "src/app/app.py", "src/app/api.py",
];
const STEMS = ["main", "app", "api"];

/** Candidate files in search order: the preferred ones, src/<pkg>/{main,app,api}.py, then other top-level modules. */
export function listAppCandidates(files: readonly string[]): string[] {
  const present = new Set(files);
  const out = PREFERRED.filter((f) => present.has(f));
  const srcPackages = files
    .filter((f) => /^src\/[^/]+\/[^/]+\.py$/.test(f) && STEMS.includes(f.split("/")[2]!.slice(0, -3)))
    .sort((a, b) => STEMS.indexOf(a.split("/")[2]!.slice(0, -3)) - STEMS.indexOf(b.split("/")[2]!.slice(0, -3)) || a.localeCompare(b));
  const topLevel = files.filter((f) => /^[^/]+\.py$/.test(f));
  for (const f of [...srcPackages, ...topLevel]) if (!out.includes(f)) out.push(f);
  return out;
}

/** Top-level assignments of FastAPI(...), then top-level `app`/`api` assignments in a module that uses FastAPI. */
export function findAppVariable(text: string): { variable: string; direct: boolean } | undefined {
  const direct = [...text.matchAll(/^([A-Za-z_]\w*)\s*(?::[^=\n]+)?=\s*(?:fastapi\.)?FastAPI\s*\(/gm)].map((m) => m[1] as string);
  const pick = (names: string[]) => names.find((n) => n === "app") ?? names.find((n) => n === "api") ?? names[0];
  const found = pick(direct);
  if (found) return { variable: found, direct: true };
  if (!/\bFastAPI\b/.test(text)) return undefined;
  // A factory (`app = create_app()`): the usual names are trusted, others would be a guess.
  const assigned = [...text.matchAll(/^(app|api)\s*(?::[^=\n]+)?=(?!=)/gm)].map((m) => m[1] as string);
  const factory = pick(assigned);
  return factory ? { variable: factory, direct: false } : undefined;
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
  const inSrc = !files.some((f) => f === `${asPath}.py` || f.startsWith(`${asPath}/`)) &&
    files.some((f) => f === `src/${asPath}.py` || f.startsWith(`src/${asPath}/`));
  return { module, variable, appDir: inSrc ? "src" : "", note: `app: ${module}:${variable} from pyproject.toml [tool.fastapi] entrypoint` };
}

export function detectFastapiApp(src: SourceSnapshot, entrypoint?: string): FastapiApp {
  if (entrypoint) return fromEntrypoint(entrypoint, src.files);
  const candidates = listAppCandidates(src.files);
  for (const file of candidates) {
    const text = src.read(file);
    if (text === undefined) continue;
    const found = findAppVariable(text);
    if (!found) continue;
    const { module, appDir } = toModulePath(file, src.files);
    const how = found.direct ? `defines ${found.variable} = FastAPI(...)` : `assigns ${found.variable} (assumed to be the FastAPI app)`;
    return { file, module, variable: found.variable, appDir, note: `app: ${file} ${how}; serving ${module}:${found.variable}` };
  }
  const looked = candidates.length > 0 ? `looked in ${candidates.slice(0, 8).join(", ")}${candidates.length > 8 ? ", ..." : ""}` : "found no Python modules";
  throw new RecipeError(
    `no FastAPI app found (${looked})`,
    'define the app as `app = FastAPI()` in main.py (or app.py, api.py, app/main.py), or set [tool.fastapi] entrypoint = "module:app" in pyproject.toml',
  );
}
