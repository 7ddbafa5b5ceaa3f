/**
 * The identity of an image build: a hash of exactly what BuildKit receives. Same hash, same
 * image: no rebuild, no restart. So every change BuildKit would see changes the hash, and a
 * file BuildKit would not send (ignored by the build's .dockerignore rules) does not.
 */
import { createHash, createHmac, type Hash } from "node:crypto";
import { closeSync, lstatSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, realpathSync, type Stats } from "node:fs";
import { join } from "node:path";
import { VisibleError } from "../../errors.js";
import { parseDockerignore, type IgnoreRules } from "./dockerignore.js";

export interface BuildInputs {
  /** The build context directory. */
  readonly context: string;
  /** The Dockerfile's text. */
  readonly dockerfile: string;
  /**
   * A recipe's generated .dockerignore. BuildKit reads it from beside the generated
   * Dockerfile and then ignores the context's own .dockerignore; undefined: the context's.
   */
  readonly dockerignore?: string;
  readonly buildArgs: Readonly<Record<string, string>>;
}

/** One entry BuildKit sends: f(ile), d(irectory), l(ink), p(ipe), s(ocket), c/b (devices). */
export interface ContextEntry {
  readonly path: string;
  readonly type: "f" | "d" | "l" | "p" | "s" | "c" | "b";
  /**
   * Permission bits with setuid/setgid/sticky (mode & 0o7777). BuildKit copies them into the
   * image as they are, so they are part of the identity. A checkout made under another umask
   * (664 instead of 644) does give another hash: its image really differs (group-writable
   * files). That costs nothing in practice, since images are built and kept per machine.
   * Owners are not hashed: the client sends every file as uid/gid 0.
   */
  readonly mode: number;
  /** A symlink's target text, never followed: BuildKit sends the link itself. */
  readonly target?: string;
}

function typeOf(st: Stats): ContextEntry["type"] {
  if (st.isSymbolicLink()) return "l";
  if (st.isDirectory()) return "d";
  if (st.isFIFO()) return "p";
  if (st.isSocket()) return "s";
  if (st.isCharacterDevice()) return "c";
  if (st.isBlockDevice()) return "b";
  return "f";
}

function errorCode(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException).code;
}

function unreadable(context: string, path: string, e: unknown): VisibleError {
  return new VisibleError(`cannot read ${path} in the build context ${context}: ${(e as Error).message}`, {
    details: ["hint: BuildKit could not send it either; fix its permissions, or list it in .dockerignore"],
  });
}

/** The rules BuildKit uses for this build: the recipe's text when given, else the context's file. */
function readRules(context: string, dockerignore: string | undefined): IgnoreRules {
  const file = join(context, ".dockerignore");
  let text: string | undefined;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    if (errorCode(e) !== "ENOENT") throw unreadable(context, ".dockerignore", e);
  }
  // A recipe's text carries the user's lines after its own: checked in their own file
  // first, a bad pattern is reported at its line there, not in the generated text.
  if (text !== undefined) parseDockerignore(text, file);
  if (dockerignore !== undefined) return parseDockerignore(dockerignore, "the recipe's generated .dockerignore");
  return parseDockerignore(text ?? "", file);
}

/**
 * What BuildKit sends of `context`, in a stable order, as its file walker does (lstat, no
 * link is followed, so loops and links that leave the context are just links). An ignored
 * directory is walked only when an exception could re-include something below it, and is
 * listed only when something below it is; a path that vanishes during the walk is skipped.
 */
export function listBuildContext(context: string, dockerignore?: string): ContextEntry[] {
  let root: string;
  try {
    // BuildKit resolves the context directory itself (and only that) before walking.
    root = realpathSync(context);
    if (!lstatSync(root).isDirectory()) throw new Error("not a directory");
  } catch (e) {
    throw new VisibleError(`the build context ${context} is not a readable directory: ${(e as Error).message}`);
  }
  const rules = readRules(root, dockerignore);
  const entries: ContextEntry[] = [];
  /** Ignored directories walked for their exceptions: listed before their first listed child. */
  const pending: ContextEntry[] = [];
  const emit = (entry: ContextEntry) => {
    entries.push(...pending.splice(0), entry);
  };
  const walk = (dir: string, prefix: string, ignoredDir: boolean) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch (e) {
      // BuildKit, too, passes over what it cannot read inside a directory it would not send.
      if (ignoredDir || errorCode(e) === "ENOENT") return;
      throw unreadable(root, `${prefix || "."}/`, e);
    }
    for (const name of names) {
      const path = prefix ? `${prefix}/${name}` : name;
      let st: Stats;
      try {
        st = lstatSync(join(dir, name));
      } catch (e) {
        if (errorCode(e) === "ENOENT") continue;
        throw unreadable(root, path, e);
      }
      const entry: ContextEntry = { path, type: typeOf(st), mode: st.mode & 0o7777 };
      const ignored = rules.ignores(path);
      if (entry.type === "d") {
        if (!ignored) {
          emit(entry);
          walk(join(dir, name), path, false);
        } else if (rules.mayReincludeBelow(path)) {
          const depth = pending.length;
          pending.push(entry);
          walk(join(dir, name), path, true);
          pending.length = Math.min(pending.length, depth);
        }
      } else if (!ignored) {
        let target: string | undefined;
        try {
          if (entry.type === "l") target = readlinkSync(join(dir, name));
        } catch (e) {
          throw unreadable(root, path, e);
        }
        emit(target === undefined ? entry : { ...entry, target });
      }
    }
  };
  walk(root, "", false);
  return entries;
}

/** The read buffer of updateWithFile, one for the process (the reads are synchronous). */
let readBuffer: Buffer | undefined;

/** Streams a file into the hash (contexts may hold large files). */
function updateWithFile(h: Hash, file: string): void {
  const fd = openSync(file, "r");
  try {
    readBuffer ??= Buffer.allocUnsafe(1 << 18);
    const buf = readBuffer;
    for (let n = readSync(fd, buf, 0, buf.length, null); n > 0; n = readSync(fd, buf, 0, buf.length, null)) h.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
}

/** The build arguments in one canonical text (their order in platform.yml is not what they are). */
export function buildArgsText(args: Readonly<Record<string, string>>): string {
  return JSON.stringify(Object.entries(args).sort());
}

/** A hash of everything a build reads: the entries BuildKit sends, the Dockerfile and the build arguments. */
export function hashBuildInputs(inputs: BuildInputs): string {
  const entries = listBuildContext(inputs.context, inputs.dockerignore);
  const h = createHash("sha256");
  // The format's version: a change of what is hashed must not collide with old hashes.
  h.update("platform-build-inputs/2\0");
  h.update(inputs.dockerfile).update("\0").update(buildArgsText(inputs.buildArgs)).update("\0");
  for (const e of entries) {
    h.update(`${e.type}\0${e.path}\0${e.mode.toString(8)}\0`);
    if (e.type === "l") h.update(`${e.target}\0`);
    if (e.type !== "f") continue;
    // Each file's bytes are hashed apart, so no content can pass for the entries after it.
    const file = createHash("sha256");
    try {
      updateWithFile(file, join(inputs.context, e.path));
    } catch (err) {
      throw unreadable(inputs.context, e.path, err);
    }
    h.update(file.digest()).update("\0");
  }
  return h.digest("hex");
}

/**
 * A hash of the variables a build sees (never the values themselves): it goes into the image's
 * identity, so that a changed value rebuilds, and into the build as PLATFORM_BUILD_ENV_HASH.
 */
export function hashBuildEnv(values: Readonly<Record<string, string>>, key: Buffer): string {
  const h = createHmac("sha256", key).update("platform-build-env/2\0");
  for (const [k, v] of Object.entries(values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) h.update(`${k}\0${v}\0`);
  return h.digest("hex");
}

/** The image's identity: what BuildKit receives (hashBuildInputs) and the hash of the variables. */
export function combineBuildHash(inputsHash: string, envHash: string): string {
  return createHash("sha256").update(`platform-build/1\0${inputsHash}\0${envHash}`).digest("hex");
}
