/**
 * How a Python service's dependencies get installed: the lockfile or manifest decides.
 * Order: uv.lock, poetry.lock (both next to a pyproject.toml), requirements.txt, then a
 * pyproject.toml alone (PEP 621 dependencies through uv, or Poetry resolving).
 */
import { parsePyproject, type Pyproject } from "./parse-pyproject.js";
import { RecipeError, type SourceSnapshot } from "./types.js";

export type PythonInstaller =
  /** `uv sync --frozen` from uv.lock; `installProject`: the project is a package uv installs. */
  | { readonly kind: "uv-lock"; readonly installProject: boolean }
  /** A member of a uv workspace: `uv sync --frozen --package NAME` from the workspace root's uv.lock. */
  | { readonly kind: "uv-workspace"; readonly packageName: string; readonly root: string; readonly member: string }
  /** From poetry.lock (exported, then pip), or `poetry install --only main --no-root` resolving without one. */
  | { readonly kind: "poetry"; readonly locked: boolean }
  /** `pip install -r`: `files` are requirements.txt and what it includes; `needsSource`: it installs local paths (-e .). */
  | { readonly kind: "requirements"; readonly files: readonly string[]; readonly needsSource: boolean }
  /** PEP 621 dependencies without a lockfile: `uv pip install -r pyproject.toml` (then the package itself). */
  | { readonly kind: "pyproject"; readonly installProject: boolean; readonly dynamicDependencies: boolean };

export interface PythonProject {
  readonly installer: PythonInstaller;
  readonly pyproject?: Pyproject;
  /** Declared dependency lines (requirements, [project] dependencies, Poetry names), to look for uvicorn. */
  readonly declared: readonly string[];
  readonly notes: string[];
}

const INCLUDE = /^\s*(?:-r|--requirement|-c|--constraint)(?:\s+|=)(\S+)/;
/** Lines that install a local directory, which needs the code in the build before the install. */
const LOCAL_PATH = /^\s*(?:-e\s+|--editable(?:\s+|=))?(?:\.{1,2}(?:\/\S*)?|file:\S+)(?:\[[^\]]*\])?\s*$/;

function dirnamePosix(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

function joinPosix(dir: string, rel: string): string {
  const parts = (dir ? `${dir}/${rel}` : rel).split("/");
  const out: string[] = [];
  for (const p of parts) {
    if (p === "" || p === ".") continue;
    if (p === "..") out.pop();
    else out.push(p);
  }
  return out.join("/");
}

/** requirements.txt and every file it pulls in with -r / -c, in reading order. */
function collectRequirements(src: SourceSnapshot, root: string): { files: string[]; lines: string[]; needsSource: boolean } {
  const files: string[] = [];
  const lines: string[] = [];
  let needsSource = false;
  const visit = (file: string, from?: string) => {
    if (files.includes(file)) return;
    const text = src.read(file);
    if (text === undefined) {
      if (src.files.includes(file)) throw new RecipeError(`${file} is too large to read`, "keep requirement files under 256 KiB");
      throw new RecipeError(
        `${from} includes ${file}, which is not in the service directory`,
        "requirement files included with -r or -c must live inside the service's source directory",
      );
    }
    files.push(file);
    for (const line of text.split(/\r?\n/)) {
      const include = INCLUDE.exec(line);
      if (include?.[1]) visit(joinPosix(dirnamePosix(file), include[1]), file);
      else if (LOCAL_PATH.test(line.replace(/\s#.*/, ""))) needsSource = true;
      else if (line.trim() && !line.trim().startsWith("#") && !line.trim().startsWith("-")) lines.push(line.trim());
    }
  };
  visit(root);
  return { files, lines, needsSource };
}

function readPyproject(src: SourceSnapshot): Pyproject | undefined {
  const text = src.read("pyproject.toml");
  return text === undefined ? undefined : parsePyproject(text);
}

export function detectPythonProject(src: SourceSnapshot): PythonProject {
  const has = (f: string) => src.files.includes(f);
  const pyproject = readPyproject(src);
  const notes: string[] = [];
  const projectDeclared = pyproject ? [...pyproject.dependencies, ...pyproject.poetryDependencies] : [];

  if (has("uv.lock") && pyproject) {
    // uv installs the project itself only when it is a package (a build system, or tool.uv.package = true).
    const installProject = pyproject.uvPackage ?? pyproject.hasBuildSystem;
    notes.push(`uv.lock: installing with uv sync --frozen --no-dev${installProject ? " (and the project as a package)" : ""}`);
    return { installer: { kind: "uv-lock", installProject }, pyproject, declared: projectDeclared, notes };
  }
  if (has("uv.lock")) notes.push("uv.lock without pyproject.toml: ignored");
  const ws = src.workspace;
  if (ws?.kind === "uv" && pyproject?.name) {
    notes.push(
      `uv workspace at ${ws.root}: installing with uv sync --frozen --no-dev --package ${pyproject.name} from the workspace's uv.lock (the build context is the workspace root)`,
    );
    return {
      installer: { kind: "uv-workspace", packageName: pyproject.name, root: ws.root, member: ws.member },
      pyproject,
      declared: projectDeclared,
      notes,
    };
  }
  if (has("poetry.lock") && pyproject) {
    notes.push("poetry.lock: installing with poetry export --only main (exact versions and hashes), then pip install");
    return { installer: { kind: "poetry", locked: true }, pyproject, declared: projectDeclared, notes };
  }
  if (has("poetry.lock")) notes.push("poetry.lock without pyproject.toml: ignored");

  if (has("requirements.txt")) {
    const reqs = collectRequirements(src, "requirements.txt");
    const included = reqs.files.slice(1);
    notes.push(`requirements.txt: installing with pip${included.length ? ` (with ${included.join(", ")})` : ""}`);
    if (reqs.needsSource)
      notes.push(
        "requirements.txt installs a local path (-e . or similar): the code is copied before the install, so code changes reinstall dependencies",
      );
    return {
      installer: { kind: "requirements", files: reqs.files, needsSource: reqs.needsSource },
      pyproject,
      declared: reqs.lines,
      notes,
    };
  }

  if (pyproject?.hasProject && (pyproject.dependencies.length > 0 || pyproject.dynamicDependencies)) {
    // As uv sync would: [tool.uv] package = false keeps even a project with a build system uninstalled.
    const installProject = pyproject.uvPackage ?? pyproject.hasBuildSystem;
    notes.push(
      "pyproject.toml without a lockfile: installing [project] dependencies with uv pip (versions resolve at build time; commit uv.lock to pin them)",
    );
    if (pyproject.hasBuildSystem && pyproject.uvPackage === false)
      notes.push("[tool.uv] package = false: the project itself is not installed as a package");
    if (pyproject.dynamicDependencies)
      notes.push("pyproject.toml declares dynamic dependencies: the project is built to find them, so code changes reinstall dependencies");
    return {
      installer: { kind: "pyproject", installProject, dynamicDependencies: pyproject.dynamicDependencies },
      pyproject,
      declared: projectDeclared,
      notes,
    };
  }
  if (pyproject?.hasPoetry && pyproject.poetryDependencies.length > 0) {
    notes.push("pyproject.toml ([tool.poetry]) without poetry.lock: poetry resolves at build time (commit poetry.lock to pin versions)");
    return { installer: { kind: "poetry", locked: false }, pyproject, declared: projectDeclared, notes };
  }

  const pipenv = has("Pipfile") ? " Pipfile (pipenv) is not supported: export it with `pipenv requirements > requirements.txt`." : "";
  throw new RecipeError(
    pyproject
      ? "pyproject.toml declares no dependencies ([project] dependencies or [tool.poetry.dependencies]) and there is no requirements.txt"
      : "no requirements.txt or pyproject.toml in the service directory",
    `declare the service's dependencies (at least fastapi and uvicorn) in requirements.txt or pyproject.toml.${pipenv}`,
  );
}
