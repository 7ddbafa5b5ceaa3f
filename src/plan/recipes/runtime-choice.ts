/**
 * Which Python minor or Node major a service gets, among the versions there are. One policy for
 * both languages (docs/guide/builds.md, "Python and Node versions"):
 *   - a pin (.python-version, runtime.txt, .nvmrc, .node-version, volta) is taken exactly;
 *   - a range (requires-python, Poetry's python, engines.node) keeps the default version when it
 *     admits it, the version every app got before (a platform upgrade never moves a running app
 *     to another runtime), else the newest version there is that it admits;
 *   - when nothing there matches, the nearest version, newer first (code written for 3.12 runs on
 *     3.13 more often than on 3.11), with a note that says so: the build's own tools then decide
 *     (uv and pip refuse a Python outside requires-python, and the build log says why).
 * Versions are strings ("3.14", "24"); `key` orders them.
 */

export interface VersionRequest {
  /** An exact version, and where it was read. */
  readonly pin?: { readonly from: string; readonly version: string };
  /** A range, and where it was read; `admits` is undefined when the text cannot be read. */
  readonly range?: { readonly from: string; readonly text: string; readonly admits: (version: string) => boolean | undefined };
}

export type ChoiceReason =
  /** The pin, available. */
  | "pinned"
  /** No request (or an unreadable range): the default. */
  | "default"
  /** A range that admits the default. */
  | "default-admitted"
  /** A range that excludes the default: the newest available it admits. */
  | "newest-admitted"
  /** Nothing available matches: the nearest one. */
  | "nearest";

export interface VersionChoice {
  readonly version: string;
  readonly reason: ChoiceReason;
  /** For "nearest": the version that was wanted (the pin, or the newest the range admits). */
  readonly wanted?: string;
}

export interface ChoiceInputs {
  /** Versions with an image, oldest first. */
  readonly available: readonly string[];
  readonly defaultVersion: string;
  /** Every version that exists anywhere, oldest first: a range that admits none available is aimed at the newest of these it admits. */
  readonly known: readonly string[];
  /** A number that orders versions: 3.14 -> 3014, 24 -> 24. */
  readonly key: (version: string) => number;
}

/** The available version nearest to `wanted`: the closest newer one, else the closest older one. */
function nearest(wanted: string, candidates: readonly string[], key: ChoiceInputs["key"]): string | undefined {
  const w = key(wanted);
  const newer = candidates.filter((v) => key(v) > w).sort((a, b) => key(a) - key(b));
  const older = candidates.filter((v) => key(v) < w).sort((a, b) => key(b) - key(a));
  return newer[0] ?? older[0];
}

export function chooseVersion(request: VersionRequest, inputs: ChoiceInputs): VersionChoice {
  const { available, defaultVersion, key } = inputs;
  const admits = request.range?.admits;
  const admitted = (v: string) => (admits ? admits(v) !== false : true);
  if (request.pin) {
    const wanted = request.pin.version;
    if (available.includes(wanted)) return { version: wanted, reason: "pinned" };
    const pick = nearest(wanted, available.filter(admitted), key) ?? nearest(wanted, available, key) ?? defaultVersion;
    return { version: pick, reason: "nearest", wanted };
  }
  if (!admits || admits(defaultVersion) === undefined) return { version: defaultVersion, reason: "default" };
  if (admits(defaultVersion)) return { version: defaultVersion, reason: "default-admitted" };
  const fits = available.filter((v) => admits(v) === true);
  const newest = fits[fits.length - 1];
  if (newest) return { version: newest, reason: "newest-admitted" };
  const target = inputs.known.filter((v) => admits(v) === true).pop();
  if (!target) return { version: defaultVersion, reason: "nearest" };
  return { version: nearest(target, available, key) ?? defaultVersion, reason: "nearest", wanted: target };
}
