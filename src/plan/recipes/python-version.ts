/**
 * Which Python a FastAPI service asks for (.python-version, requires-python, Poetry's
 * python constraint) and which base image that means. Versions are compared at the
 * major.minor level: a base image tag names a minor release, and any patch of it counts.
 */
import { parseImageRef, parseTagVersion } from "./dockerfile-parts.js";

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

export interface PythonRequest {
  /** Where it came from, for notes: ".python-version", "requires-python", "tool.poetry python". */
  readonly from: string;
  /** An exact minor version (.python-version) or a specifier (requires-python). */
  readonly exact?: string;
  readonly spec?: string;
}

export interface PythonRuntime {
  readonly image: string;
  /** The Python minor version the image provides, when known. */
  readonly version?: string;
  readonly notes: string[];
}

/**
 * Picks the base image. A local image (no registry) is used whatever is requested, with a
 * note when it does not match: it is the only Python there is. A public `python` image is
 * swapped for the requested minor's `-slim` tag, since a registry has them all.
 */
export function choosePythonRuntime(request: PythonRequest | undefined, baseImage: string): PythonRuntime {
  const ref = parseImageRef(baseImage);
  const baseVersion = parseTagVersion(ref.tag, 2);
  const swappable = ref.official && ref.repository === "python";
  if (!request) {
    const notes = [`Python: no .python-version or requires-python; using ${baseImage}`];
    return { image: baseImage, version: baseVersion, notes };
  }
  const wanted = request.exact ? `${request.from} ${request.exact}` : `${request.from} "${request.spec}"`;
  const spec = request.exact ? `==${request.exact}` : (request.spec as string);
  if (!baseVersion) {
    return { image: baseImage, notes: [`Python: ${wanted}; cannot tell the Python version of ${baseImage}, using it as is`] };
  }
  const fits = matchesPythonSpec(spec, baseVersion);
  if (fits === undefined) {
    return {
      image: baseImage,
      version: baseVersion,
      notes: [`Python: could not read ${wanted}; using ${baseImage} (Python ${baseVersion})`],
    };
  }
  if (fits) return { image: baseImage, version: baseVersion, notes: [`Python: ${wanted}; ${baseImage} has Python ${baseVersion}`] };
  if (swappable) {
    const candidates = request.exact ? [request.exact] : PUBLIC_PYTHON_VERSIONS.filter((v) => matchesPythonSpec(spec, v));
    const pick = candidates[candidates.length - 1];
    if (pick) {
      const image = `${ref.repository}:${pick}-slim`;
      return { image, version: pick, notes: [`Python: ${wanted}; using ${image}`] };
    }
  }
  return {
    image: baseImage,
    version: baseVersion,
    notes: [`Python: ${wanted}, but ${baseImage} has only Python ${baseVersion}: building with Python ${baseVersion}`],
  };
}
