/**
 * Which Node a Next.js service asks for (.nvmrc, .node-version, package.json volta.node and
 * engines.node) and which base image that means, by the policy of runtime-choice.ts. Versions
 * are compared by major: a base image names a major release, and any minor of it counts.
 */
import { parseImageRef, parseTagVersion } from "./dockerfile-parts.js";
import { chooseVersion } from "./runtime-choice.js";
import type { SourceSnapshot } from "./types.js";

/** Majors with official `node:<v>-slim` images, oldest first. */
export const PUBLIC_NODE_MAJORS = [18, 20, 22, 24] as const;

/** nvm's LTS names (`lts/iron`); `lts/*` is the newest of them. */
const LTS_CODENAMES: Readonly<Record<string, number>> = {
  argon: 4,
  boron: 6,
  carbon: 8,
  dubnium: 10,
  erbium: 12,
  fermium: 14,
  gallium: 16,
  hydrogen: 18,
  iron: 20,
  jod: 22,
  krypton: 24,
};
const NEWEST_LTS = Math.max(...Object.values(LTS_CODENAMES));

/** A pin (an exact major: .nvmrc, .node-version, volta) and a range (engines.node). */
export interface NodeRequest {
  readonly pin?: { readonly from: string; readonly text: string };
  readonly range?: { readonly from: string; readonly range: string };
}

/**
 * The major of an .nvmrc or .node-version line: "20", "v20.11.1", "lts/iron", "lts/*"; "node"
 * and "latest" mean the newest there is (-1 here). Undefined when it cannot be read.
 */
export function parseNodeVersionFile(text: string): number | undefined {
  const line = text
    .split(/\r?\n/)
    .map((l) => l.replace(/#.*/, "").trim())
    .find(Boolean);
  if (!line) return undefined;
  const m = /^v?(\d+)(?:\.(?:\d+|x|\*))*$/i.exec(line);
  if (m) return Number(m[1]);
  const lts = /^lts\/(\*|[a-z]+)$/i.exec(line);
  if (lts) return lts[1] === "*" ? NEWEST_LTS : LTS_CODENAMES[(lts[1] as string).toLowerCase()];
  return /^(node|latest|current|stable)$/i.test(line) ? -1 : undefined;
}

export function detectNodeRequest(
  src: SourceSnapshot,
  pkg: { engines?: { node?: string }; volta?: { node?: string } },
): NodeRequest | undefined {
  const files: Array<[string, string | undefined]> = [
    [".nvmrc", src.read(".nvmrc")],
    [".node-version", src.read(".node-version")],
    ["package.json volta.node", typeof pkg.volta?.node === "string" ? pkg.volta.node : undefined],
  ];
  const found = files.find(([, text]) => text?.trim());
  const pin = found ? { from: found[0], text: (found[1] as string).trim().split(/\s/)[0] as string } : undefined;
  const range =
    typeof pkg.engines?.node === "string" && pkg.engines.node.trim() ? { from: "engines.node", range: pkg.engines.node } : undefined;
  return pin || range ? { ...(pin ? { pin } : {}), ...(range ? { range } : {}) } : undefined;
}

/** The same request, said to come from a workspace root. */
export function fromWorkspaceRoot(r: NodeRequest): NodeRequest {
  const at = (from: string) => `the workspace root's ${from}`;
  return {
    ...(r.pin ? { pin: { ...r.pin, from: at(r.pin.from) } } : {}),
    ...(r.range ? { range: { ...r.range, from: at(r.range.from) } } : {}),
  };
}

export interface NodeRuntime {
  readonly image: string;
  readonly notes: string[];
}

/** The versions to choose from: the set-up's catalogue, else an official image's other tags, else only the role's image. */
function nodeCatalogue(baseImage: string, base: string, versions?: Readonly<Record<string, string>>): Record<string, string> {
  const ref = parseImageRef(baseImage);
  if (versions && Object.keys(versions).length > 0) return { ...versions, [base]: baseImage };
  if (ref.official && ref.repository === "node")
    return Object.fromEntries(PUBLIC_NODE_MAJORS.map((m) => [String(m), String(m) === base ? baseImage : `node:${m}-slim`]));
  return { [base]: baseImage };
}

const KNOWN_NODE_MAJORS = Array.from({ length: 30 }, (_, i) => String(i + 4));

export function chooseNodeRuntime(
  request: NodeRequest | undefined,
  baseImage: string,
  versions?: Readonly<Record<string, string>>,
): NodeRuntime {
  const base = parseTagVersion(parseImageRef(baseImage).tag, 1);
  if (!request) return { image: baseImage, notes: [`Node: no engines.node or .nvmrc; using ${baseImage}`] };
  const wanted = request.pin ? `${request.pin.from} "${request.pin.text}"` : `${request.range?.from} "${request.range?.range}"`;
  if (!base) return { image: baseImage, notes: [`Node: ${wanted}; cannot tell the Node version of ${baseImage}, using it as is`] };
  const catalogue = nodeCatalogue(baseImage, base, versions);
  const available = Object.keys(catalogue).sort((a, b) => Number(a) - Number(b));
  const pinned = request.pin ? parseNodeVersionFile(request.pin.text) : undefined;
  // "node" / "latest": the newest there is.
  const pinVersion = pinned === -1 ? available[available.length - 1] : pinned === undefined ? undefined : String(pinned);
  const range = request.range?.range;
  const choice = chooseVersion(
    {
      ...(pinVersion && request.pin ? { pin: { from: request.pin.from, version: pinVersion } } : {}),
      ...(range && request.range
        ? { range: { from: request.range.from, text: range, admits: (v: string) => matchesNodeRange(range, Number(v)) } }
        : {}),
    },
    { available, defaultVersion: base, known: KNOWN_NODE_MAJORS, key: Number },
  );
  const image = catalogue[choice.version] as string;
  // A pin that cannot be read: said so, and the range (if any) decided.
  const unread = request.pin && pinVersion === undefined ? `could not read ${wanted}` : undefined;
  const asked = request.pin && pinVersion === undefined && request.range ? `${request.range.from} "${request.range.range}"` : wanted;
  switch (choice.reason) {
    case "default":
      return { image, notes: [`Node: could not read ${unread ? wanted : asked}; using ${image} (Node ${choice.version})`] };
    case "default-admitted":
      return { image, notes: [`Node: ${unread ? `${unread}; ` : ""}${asked}; ${image} has Node ${choice.version}`] };
    case "pinned":
      return {
        image,
        notes: [image === baseImage ? `Node: ${wanted}; ${image} has Node ${choice.version}` : `Node: ${wanted}; using ${image}`],
      };
    case "newest-admitted":
      return {
        image,
        notes: [
          `Node: ${unread ? `${unread}; ` : ""}${asked}; using ${image}, the newest Node here that it admits (not the default ${base})`,
        ],
      };
    case "nearest":
      if (available.length === 1)
        return { image, notes: [`Node: ${asked}, but ${image} has only Node ${choice.version}: building with Node ${choice.version}`] };
      return {
        image,
        notes: [
          `Node: ${asked}, but no image here has ${choice.wanted ? `Node ${choice.wanted}` : "a Node it admits"} (there are ${available.join(", ")}): building with Node ${choice.version} (${image}), the nearest`,
        ],
      };
  }
}

function nodeClauseHolds(clause: string, major: number): boolean | undefined {
  if (clause === "*" || clause === "x") return true;
  const m = /^(>=|<=|>|<|\^|~|=)?\s*v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?$/.exec(clause);
  if (!m) return undefined;
  const v = Number(m[2]);
  const rest = [m[3], m[4]].filter((p) => p !== undefined && p !== "x" && p !== "*").map(Number);
  const restIsZero = rest.every((p) => p === 0);
  switch (m[1]) {
    case ">=":
      return major >= v;
    case ">":
      return rest.length === 0 ? major > v : major >= v;
    case "<=":
      return major <= v;
    case "<":
      // "<20" and "<20.0.0" exclude Node 20; "<20.5" admits it.
      return restIsZero ? major < v : major <= v;
    default: // "^20", "~20.1", "=20", "20", "20.x"
      return major === v;
  }
}

/** Whether a Node major satisfies an engines-style range; undefined when unreadable ("lts/*"). */
export function matchesNodeRange(range: string, major: number): boolean | undefined {
  let result = false;
  for (const alt of range.split("||")) {
    const clauses = alt
      .replace(/([<>=^~])\s+/g, "$1")
      .trim()
      .split(/\s+(?=[<>=^~v\d*x])|,/)
      .map((c) => c.trim())
      .filter(Boolean);
    if (clauses.length === 0) return undefined;
    let all = true;
    for (const clause of clauses) {
      const holds = nodeClauseHolds(clause, major);
      if (holds === undefined) return undefined;
      all &&= holds;
    }
    result ||= all;
  }
  return result;
}
