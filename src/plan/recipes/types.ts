import { VisibleError } from "../../errors.js";

/**
 * What a build recipe reads and what it produces. Recipes are pure: they see a service
 * directory only through a SourceSnapshot (made by scanSource, the one I/O step), so they
 * are unit-tested with plain tables of snapshots.
 */

/** A read-only view of a service directory, taken before the plan is built. */
export interface SourceSnapshot {
  /**
   * Relative posix paths of the files, depth ≤ 3, sorted, without the contents of
   * node_modules, .git, .venv, __pycache__, .next and similar local caches.
   */
  readonly files: readonly string[];
  /**
   * The text of a small file that recipes look at (manifests, version files, next.config,
   * the head of Python modules and of Node lockfiles, where their version is), or undefined
   * when it is absent or was not read. Other lockfiles are only listed in `files`.
   */
  read(path: string): string | undefined;
  /**
   * The workspace the directory is a member of, when it has no lockfile of its own and an
   * ancestor (up to the project directory) holds one: a uv workspace (pyproject.toml with
   * [tool.uv.workspace] and uv.lock) or a pnpm workspace (pnpm-workspace.yaml and
   * pnpm-lock.yaml).
   */
  readonly workspace?: WorkspaceSnapshot;
}

export interface WorkspaceSnapshot {
  readonly kind: "uv" | "pnpm";
  /** The workspace root relative to the service directory, posix: "..", "../..". */
  readonly root: string;
  /** The service directory relative to the workspace root, posix: "backend", "apps/web". */
  readonly member: string;
  /** The workspace root's own view (its manifests; listed files of the whole workspace). */
  readonly snapshot: SourceSnapshot;
}

/** Base images the generated Dockerfiles start from (local ones when there is no registry). */
export interface BaseImages {
  readonly python: string;
  readonly node: string;
  /**
   * The other versions there are, version -> image ("3.14" -> "platform-local/python:3.14-<hash>"):
   * the set-up's catalogue (images.json), built on first need. Without one, an official image's
   * other tags are the choice (python:3.14-slim), and a team's own image is the only one.
   */
  readonly pythonVersions?: Readonly<Record<string, string>>;
  readonly nodeVersions?: Readonly<Record<string, string>>;
  /** OpenTelemetry layer images the set-up built (opentelemetry.ts, `otelLayer`): used when one matches. */
  readonly otelLayers?: readonly string[];
}

export interface Recipe {
  /** A complete Dockerfile; its build context is the service directory, or `context`. */
  readonly dockerfile: string;
  /**
   * When the build context is not the service directory: the workspace root relative to the
   * service directory ("../.."), and the service directory relative to it ("services/api").
   */
  readonly context?: { readonly root: string; readonly member: string };
  /** Used instead of the directory's own .dockerignore (whose lines it includes). */
  readonly dockerignore: string;
  /** The image the generated Dockerfile starts from (the Python or Node version chosen): a deploy makes sure it exists. */
  readonly baseImage: string;
  /** The port the container listens on (it also honours $PORT). */
  readonly port: number;
  /** The container's command, as in the Dockerfile's CMD. */
  readonly start: string[];
  /** What was detected and decided, in words, e.g. "uv.lock: installing with uv sync --frozen". */
  readonly notes: string[];
  /** The same decisions by topic, for `platform plan`: each is one of the notes. */
  readonly summary: RecipeSummary;
  /** The Dockerfile stage a migration runs from (every dependency, dev ones too), when it is not the service's image. */
  readonly migrateTarget?: string;
}

export interface RecipeSummary {
  /** Package manager and lockfile, and why. */
  readonly install: string;
  /** Python or Node version: what was asked for, where, and what the image has. */
  readonly runtime: string;
  /** The FastAPI app and how it was found, or what a Next.js build outputs. */
  readonly app?: string;
  readonly start: string;
  /** Prisma and the engines it runs on (recipes/prisma.ts), when the project uses it. */
  readonly prisma?: string;
  /** The notes where the platform fell back from what the project asked for or lacks. */
  readonly fallbacks: string[];
  /** Where the migration runs from, when not the service's image. */
  readonly migrate?: string;
}

/**
 * Notes that report a fallback: a version the image lacks, a missing lockfile, a tool the
 * platform added, a choice among several candidates. Worded by the recipes themselves, so
 * their words are the contract (the recipe tests pin them).
 */
const FALLBACK =
  /, but |^no lockfile|without a lockfile|without poetry\.lock|not among the declared|^several |also found |cannot tell|could not read|: ignored|kept in the image|not next build|^no build script/;

export function isFallbackNote(note: string): boolean {
  return FALLBACK.test(note);
}

/**
 * The source directory cannot be built by a recipe; `hint` says what the user can do. A
 * VisibleError (its hint printed below the message), since it is the user's to fix; callers
 * that know the service should still say which one.
 */
export class RecipeError extends VisibleError {
  readonly hint: string;

  constructor(message: string, hint: string) {
    super(message, { details: [`hint: ${hint}`] });
    this.name = "RecipeError";
    this.hint = hint;
  }
}
