/**
 * Which Python a FastAPI service asks for (.python-version, requires-python, Poetry's
 * python constraint) and which base image that means. Versions are compared at the
 * major.minor level: a base image tag names a minor release, and any patch of it counts.
 */
import { parseImageRef, parseTagVersion } from "./dockerfile-parts.js";
import { chooseVersion } from "./runtime-choice.js";

/** Minor releases with official `python:<v>-slim` images, oldest first. */
export const PUBLIC_PYTHON_VERSIONS = ["3.9", "3.10", "3.11", "3.12", "3.13", "3.14"] as const;

type Minor = [number, number];

function toMinor(v: string): Minor {
  const [a, b] = v.split(".");
  return [Number(a), Number(b ?? 0)];
}

function compare(a: Minor, b: Minor): number {
  return a[0] - b[0] || a[1] - b[1];
}

/** "3.12" from ".python-version" text such as "3.12", "3.12.4", "cpython-3.12", "pypy3.10" → undefined for pypy. */
export function parsePythonVersionFile(text: string): string | undefined {
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*/, "").trim();
    if (!line) continue;
    const m = /^(?:cpython-?|python)?(\d+)\.(\d+)/i.exec(line);
    return m ? `${m[1]}.${m[2]}` : undefined;
  }
  return undefined;
}

/** One clause such as ">=3.10", "<4", "~=3.11", "==3.12.*", "^3.11" (Poetry), "3.11" (Poetry). */
function clauseHolds(clause: string, v: Minor): boolean | undefined {
  const m = /^(===|~=|==|!=|<=|>=|<|>|\^|~)?\s*v?(\d+)(?:\.(\d+|\*))?(?:\.(\d+|\*))?(?:\.\*)?$/.exec(clause.trim());
  if (!m) return clause.trim() === "*" ? true : undefined;
  const op = m[1] ?? "==";
  const major = Number(m[2]);
  const minorPart = m[3];
  const hasMinor = minorPart !== undefined && minorPart !== "*";
  const target: Minor = [major, hasMinor ? Number(minorPart) : 0];
  const patch = m[4] !== undefined && m[4] !== "*" ? Number(m[4]) : undefined;
  const c = compare(v, target);
  switch (op) {
    case ">=":
      return c >= 0;
    case ">":
      // ">3.11.2" still admits later 3.11 patches; ">3.11" does not admit 3.11 itself.
      return patch !== undefined ? c >= 0 : hasMinor ? c > 0 : v[0] > major;
    case "<=":
      return hasMinor ? c <= 0 : v[0] <= major;
    case "<":
      return patch !== undefined && patch > 0 ? c <= 0 : c < 0;
    case "!=":
      return patch !== undefined ? true : hasMinor ? c !== 0 : v[0] !== major;
    case "~=":
      return patch !== undefined ? c === 0 : v[0] === major && v[1] >= target[1];
    case "^":
      return v[0] === major && v[1] >= target[1];
    case "~":
      return hasMinor ? c === 0 : v[0] === major;
    default: // "==", "===", bare version
      return hasMinor ? c === 0 : v[0] === major;
  }
}

/**
 * Whether Python `version` (major.minor) satisfies a PEP 440 specifier set or a Poetry
 * constraint; undefined when the text cannot be read.
 */
export function matchesPythonSpec(spec: string, version: string): boolean | undefined {
  const v = toMinor(version);
  const alternatives = spec.split(/\|\||\bor\b/);
  let any = false;
  for (const alt of alternatives) {
    // PEP 440 separates clauses with commas; Poetry also allows spaces (">=3.9 <3.13").
    const clauses = alt
      .split(/,|\s+(?=[<>=!~^])/)
      .map((c) => c.trim())
      .filter(Boolean);
    if (clauses.length === 0) return undefined;
    let all = true;
    for (const clause of clauses) {
      const holds = clauseHolds(clause, v);
      if (holds === undefined) return undefined;
      all &&= holds;
    }
    any ||= all;
  }
  return any;
}

/** What a service asks for: a pin (.python-version, runtime.txt) and a range (requires-python, Poetry's python). */
export interface PythonRequest {
  readonly pin?: { readonly from: string; readonly version: string };
  readonly range?: { readonly from: string; readonly spec: string };
}

export interface PythonRuntime {
  readonly image: string;
  /** The Python minor version the image provides, when known. */
  readonly version?: string;
  readonly notes: string[];
}

/** "3.12" from Heroku's runtime.txt ("python-3.12.4"); undefined for anything else. */
export function parseRuntimeTxt(text: string): string | undefined {
  const m = /^\s*python-(\d+)\.(\d+)/m.exec(text);
  return m ? `${m[1]}.${m[2]}` : undefined;
}

/** The pin and the range a service's files state; `undefined` when they state neither. */
export function detectPythonRequest(
  read: (path: string) => string | undefined,
  pyproject: { readonly requiresPython?: string; readonly poetryPython?: string } | undefined,
  /** A workspace member's root: its .python-version counts when the member has none (as uv reads it). */
  readRoot?: (path: string) => string | undefined,
): PythonRequest | undefined {
  const own = read(".python-version");
  const rootFile = own === undefined ? readRoot?.(".python-version") : undefined;
  const file = own ?? rootFile;
  const fromFile = file === undefined ? undefined : parsePythonVersionFile(file);
  const runtimeTxt = read("runtime.txt");
  const fromRuntime = runtimeTxt === undefined ? undefined : parseRuntimeTxt(runtimeTxt);
  const pin = fromFile
    ? { from: rootFile === undefined ? ".python-version" : "the workspace root's .python-version", version: fromFile }
    : fromRuntime
      ? { from: "runtime.txt", version: fromRuntime }
      : undefined;
  const range = pyproject?.requiresPython
    ? { from: "requires-python", spec: pyproject.requiresPython }
    : pyproject?.poetryPython
      ? { from: "tool.poetry python", spec: pyproject.poetryPython }
      : undefined;
  return pin || range ? { ...(pin ? { pin } : {}), ...(range ? { range } : {}) } : undefined;
}

/** Every CPython minor a range may aim at, oldest first (for the nearest one when none is here). */
const KNOWN_PYTHON_VERSIONS = Array.from({ length: 14 }, (_, i) => `3.${i + 7}`);
const pythonKey = (v: string) => {
  const [a, b] = toMinor(v);
  return a * 1000 + b;
};

/**
 * The versions to choose from: the catalogue the set-up wrote (local images, built on first
 * need), else the official tags when the role's image is the official python image, else only
 * the role's image (a team's own image, PLATFORM_PYTHON_IMAGE).
 */
function pythonCatalogue(baseImage: string, baseVersion: string, versions?: Readonly<Record<string, string>>): Record<string, string> {
  const ref = parseImageRef(baseImage);
  if (versions && Object.keys(versions).length > 0) return { ...versions, [baseVersion]: baseImage };
  if (ref.official && ref.repository === "python")
    return Object.fromEntries(PUBLIC_PYTHON_VERSIONS.map((v) => [v, v === baseVersion ? baseImage : `${ref.repository}:${v}-slim`]));
  return { [baseVersion]: baseImage };
}

/**
 * Picks the base image by the policy of runtime-choice.ts, among `versions` (version -> image,
 * the set-up's catalogue) or the official tags. Notes say what was asked, where, what was
 * chosen and why; a note with ", but" is a fallback (`platform plan` lists it).
 */
export function choosePythonRuntime(
  request: PythonRequest | undefined,
  baseImage: string,
  versions?: Readonly<Record<string, string>>,
): PythonRuntime {
  const baseVersion = parseTagVersion(parseImageRef(baseImage).tag, 2);
  if (!request) {
    const notes = [`Python: no .python-version or requires-python; using ${baseImage}`];
    return { image: baseImage, version: baseVersion, notes };
  }
  const wanted = request.pin ? `${request.pin.from} ${request.pin.version}` : `${request.range?.from} "${request.range?.spec}"`;
  if (!baseVersion) {
    return { image: baseImage, notes: [`Python: ${wanted}; cannot tell the Python version of ${baseImage}, using it as is`] };
  }
  const catalogue = pythonCatalogue(baseImage, baseVersion, versions);
  const available = Object.keys(catalogue).sort((a, b) => pythonKey(a) - pythonKey(b));
  const spec = request.range?.spec;
  const choice = chooseVersion(
    {
      ...(request.pin ? { pin: request.pin } : {}),
      ...(request.range && spec
        ? { range: { from: request.range.from, text: spec, admits: (v: string) => matchesPythonSpec(spec, v) } }
        : {}),
    },
    { available, defaultVersion: baseVersion, known: KNOWN_PYTHON_VERSIONS, key: pythonKey },
  );
  const image = catalogue[choice.version] as string;
  const chosen = { image, version: choice.version };
  switch (choice.reason) {
    case "default":
      return { ...chosen, notes: [`Python: could not read ${wanted}; using ${image} (Python ${choice.version})`] };
    case "default-admitted":
      return { ...chosen, notes: [`Python: ${wanted}; ${image} has Python ${choice.version}`] };
    case "pinned":
      return {
        ...chosen,
        notes: [image === baseImage ? `Python: ${wanted}; ${image} has Python ${choice.version}` : `Python: ${wanted}; using ${image}`],
      };
    case "newest-admitted":
      return {
        ...chosen,
        notes: [`Python: ${wanted}; using ${image}, the newest Python here that it admits (not the default ${baseVersion})`],
      };
    case "nearest":
      if (available.length === 1)
        return {
          ...chosen,
          notes: [`Python: ${wanted}, but ${image} has only Python ${choice.version}: building with Python ${choice.version}`],
        };
      return {
        ...chosen,
        notes: [
          `Python: ${wanted}, but no image here has ${choice.wanted ? `Python ${choice.wanted}` : "a Python it admits"} (there are ${available.join(", ")}): building with Python ${choice.version} (${image}), the nearest`,
        ],
      };
  }
}
