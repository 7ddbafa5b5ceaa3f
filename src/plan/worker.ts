import type { HealthSpec } from "./types.js";
import { buildFastapiRecipe, RecipeError, type SourceSnapshot } from "./recipes/index.js";
import { buildNodeWorkerRecipe } from "./recipes/node-worker.js";

type RecipeArgs = Parameters<typeof buildFastapiRecipe>;

/** Files that make a directory a Python project (what the FastAPI recipe installs from). */
const PYTHON_MARKERS = ["pyproject.toml", "requirements.txt", "uv.lock", "poetry.lock", "Pipfile", "setup.py"];

/**
 * A worker built from `source`: a Python project gets the FastAPI recipe's image (its installer,
 * Python version and OpenTelemetry layer), a Node project (package.json) the Node recipe's install
 * and build, each with platform.yml's start as its command. The recipe is chosen by what the
 * directory holds, as for the other types: no runtime field to keep in sync. Python first: a
 * Python project may keep a package.json for its tooling.
 */
export function buildWorkerRecipe(src: SourceSnapshot, images: RecipeArgs[1], opts: RecipeArgs[2]): ReturnType<typeof buildFastapiRecipe> {
  if (PYTHON_MARKERS.some((f) => src.files.includes(f))) return buildFastapiRecipe(src, images, opts);
  if (src.files.includes("package.json")) return buildNodeWorkerRecipe(src, images, opts);
  throw new RecipeError(
    `no Python or Node.js project here (none of ${PYTHON_MARKERS.join(", ")}, package.json)`,
    "a worker built from source is a Python or Node.js project; for anything else use build: with a Dockerfile",
  );
}

/** Kept running this long (no exit, no restart) counts as started: a crash at start fails the deploy. */
export const WORKER_SETTLE_SECONDS = 5;
export const WORKER_HEALTH: HealthSpec = { kind: "running", settleSeconds: WORKER_SETTLE_SECONDS };
/** SIGTERM, then this long to finish the job in hand before SIGKILL. */
export const WORKER_STOP_GRACE_SECONDS = 30;
