/**
 * The one I/O step of the build recipes: a service directory read into a SourceSnapshot
 * before the plan is built, so that the recipes themselves stay pure. It lists files a few
 * levels deep and keeps the text of the small files recipes look at; of Node lockfiles only
 * the head, where their version is (which release of the package manager reads them), and
 * nothing large.
 */
import type { Dirent } from "node:fs";
import { open, readdir, readFile, stat } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import type { Config } from "../config/index.js";
import { parsePyproject } from "./recipes/parse-pyproject.js";
import { RecipeError, type SourceSnapshot, type WorkspaceSnapshot } from "./recipes/types.js";

/** Directories that are local state, never source: not listed, not read. */
const SKIP_DIRS = new Set([
  "node_modules",
  ".git",
  ".venv",
  "venv",
  "__pycache__",
  ".next",
  ".pytest_cache",
  ".mypy_cache",
  ".ruff_cache",
  ".tox",
  ".nox",
  ".turbo",
  ".platform",
  ".idea",
  ".vscode",
]);
const MAX_DEPTH = 3;
/** A bound on huge trees: enough for any service directory a recipe needs to understand. */
const MAX_FILES = 20_000;
const MANIFEST_BYTES = 256 * 1024;
/** Python modules are read up to here: `app = FastAPI()` sits near the top. */
const MODULE_HEAD_BYTES = 32 * 1024;
const MAX_MODULES = 400;

/** Top-level files whose whole text recipes use. */
const ROOT_MANIFESTS = new Set([
  "pyproject.toml",
  ".python-version",
  "package.json",
  ".nvmrc",
  ".node-version",
  ".dockerignore",
  ".yarnrc.yml",
  "pnpm-workspace.yaml",
  "next.config.js",
  "next.config.mjs",
  "next.config.cjs",
  "next.config.ts",
  "next.config.mts",
  "prisma.config.ts",
  "prisma.config.mts",
  "prisma.config.js",
]);

/**
 * Node lockfiles whose head says which release wrote them (lockfileVersion, yarn.lock's header
 * and __metadata, the first checksum's form): a few kilobytes, whatever the lockfile's size.
 */
const LOCKFILE_HEADS = new Set(["pnpm-lock.yaml", "yarn.lock", "package-lock.json", "npm-shrinkwrap.json"]);
const LOCKFILE_HEAD_BYTES = 8 * 1024;

/** How much of a file to keep: the whole (up to the limit), its head, or nothing. */
function toReadLimit(rel: string, depth: number): { bytes: number; head: boolean; module?: boolean } | undefined {
  const name = basename(rel);
  if (depth === 1 && ROOT_MANIFESTS.has(name)) return { bytes: MANIFEST_BYTES, head: false };
  if (depth === 1 && LOCKFILE_HEADS.has(name)) return { bytes: LOCKFILE_HEAD_BYTES, head: true };
  // Requirement files and what they include with -r (requirements/base.txt, constraints.txt...).
  if (/\.(txt|in)$/.test(name)) return { bytes: MANIFEST_BYTES, head: false };
  if (name.endsWith(".py")) return { bytes: MODULE_HEAD_BYTES, head: true, module: true };
  // A Prisma schema (prisma/schema.prisma, or its folder's files): which engines it asks for.
  if (name.endsWith(".prisma")) return { bytes: MANIFEST_BYTES, head: false };
  return undefined;
}

async function readHead(path: string, bytes: number): Promise<string> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}

async function readText(path: string, limit: { bytes: number; head: boolean }): Promise<string | undefined> {
  const size = (await stat(path)).size;
  if (size > limit.bytes && !limit.head) return undefined;
  const text = size > limit.bytes ? await readHead(path, limit.bytes) : await readFile(path, "utf8");
  return text.includes("\u0000") ? undefined : text;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** Lockfiles that make a directory its own project (no workspace lookup above it). */
const OWN_LOCKFILES = [
  "uv.lock",
  "poetry.lock",
  "requirements.txt",
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "bun.lock",
  "bun.lockb",
];

function toPosix(path: string): string {
  return path.split(sep).join("/");
}

/** Files whose presence together marks a workspace root, by kind (checked before anything is read). */
const WORKSPACE_MARKERS: ReadonlyArray<[WorkspaceSnapshot["kind"], string, readonly string[]]> = [
  ["uv", "pyproject.toml", ["pyproject.toml", "uv.lock"]],
  ["pnpm", "package.json", ["pnpm-workspace.yaml", "pnpm-lock.yaml"]],
];

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** The workspace kind a directory roots for this service, if any; a uv root must declare [tool.uv.workspace]. */
async function workspaceKind(dir: string, service: SourceSnapshot): Promise<WorkspaceSnapshot["kind"] | undefined> {
  for (const [kind, manifest, markers] of WORKSPACE_MARKERS) {
    if (!service.files.includes(manifest)) continue;
    if (!(await Promise.all(markers.map((m) => exists(join(dir, m))))).every(Boolean)) continue;
    if (kind === "uv" && !parsePyproject(await readFile(join(dir, "pyproject.toml"), "utf8")).uvWorkspaceMembers) continue;
    return kind;
  }
  return undefined;
}

/**
 * The nearest workspace above a service directory that has no lockfile of its own, looking
 * no higher than the project directory (where platform.yml is).
 */
async function findWorkspace(dir: string, projectDir: string, own: SourceSnapshot): Promise<WorkspaceSnapshot | undefined> {
  if (OWN_LOCKFILES.some((f) => own.files.includes(f))) return undefined;
  const top = resolve(projectDir);
  for (let up = dirname(resolve(dir)); up === top || up.startsWith(top + sep); up = dirname(up)) {
    // A few stats per ancestor; only a workspace root, once found, is read and scanned.
    const kind = await workspaceKind(up, own);
    if (kind) return { kind, root: toPosix(relative(dir, up)), member: toPosix(relative(up, dir)), snapshot: await scanSource(up) };
    if (up === top) break;
  }
  return undefined;
}

export async function scanSource(dir: string, projectDir?: string): Promise<SourceSnapshot> {
  if (!(await isDirectory(dir))) {
    throw new RecipeError(
      `source directory ${dir} does not exist or is not a directory`,
      "`source` is a directory relative to platform.yml",
    );
  }
  const files: string[] = [];
  const texts = new Map<string, string>();
  let modules = 0;

  const walk = async (abs: string, rel: string, depth: number): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(abs, { withFileTypes: true });
    } catch {
      return; // unreadable directory: the build will say more if it matters
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (files.length >= MAX_FILES) return;
      const childAbs = join(abs, entry.name);
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      // A symlink counts as what it points to, but linked directories are not followed.
      const isDir = entry.isDirectory();
      const isFile = entry.isFile() || (entry.isSymbolicLink() && !(await isDirectory(childAbs)));
      if (isDir) {
        if (!SKIP_DIRS.has(entry.name) && depth < MAX_DEPTH) await walk(childAbs, childRel, depth + 1);
        continue;
      }
      if (!isFile) continue;
      files.push(childRel);
      const limit = toReadLimit(childRel, depth);
      if (!limit || (limit.module && modules >= MAX_MODULES)) continue;
      if (limit.module) modules++;
      try {
        const text = await readText(childAbs, limit);
        if (text !== undefined) texts.set(childRel, text);
      } catch {
        // Dangling symlink or unreadable file: listed, not read.
      }
    }
  };
  await walk(dir, "", 1);
  files.sort();

  const snapshot: SourceSnapshot = {
    files,
    read: (path: string) => texts.get(path.replace(/\\/g, "/").replace(/^(\.\/)+/, "")),
  };
  const workspace = projectDir === undefined ? undefined : await findWorkspace(dir, projectDir, snapshot);
  return workspace ? { ...snapshot, workspace } : snapshot;
}

/** The I/O a plan needs first: a snapshot of each `source` service's directory. */
export async function scanSources(config: Config, projectDir: string): Promise<Map<string, SourceSnapshot>> {
  const sources = new Map<string, SourceSnapshot>();
  for (const s of Object.values(config.services)) {
    if (s.source) sources.set(s.name, await scanSource(resolve(projectDir, s.source), projectDir));
  }
  return sources;
}
