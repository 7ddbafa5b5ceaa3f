/**
 * The build recipe of a `worker` service whose source is a Node project (package.json): the
 * install of a Next.js build (the project's package manager at its release, frozen to the
 * lockfile, a pnpm workspace from its root), the build script when there is one (TypeScript
 * compiled to JavaScript), dev dependencies dropped unless platform.yml's start needs one, and
 * start as the command. It listens on nothing.
 */
import { prismaSummary } from "./prisma.js";
import { detectNodePackage, type NodePackage } from "./detect-node-project.js";
import { chooseNodeRuntime } from "./node-version.js";
import {
  BUILD_ENV_HASH_ARG,
  buildCopyStep,
  buildCreateUserStep,
  buildDockerignore,
  buildMigrateStage,
  buildNetworkRun,
  MIGRATE_NOTE,
  MIGRATE_STAGE,
  toWorkspaceIgnores,
} from "./dockerfile-parts.js";
import { buildBuildCommand, buildInstallCommand, buildPruneCommand, listInstallInputs } from "./node-install.js";
import { detectNodeWorkspace } from "./node-workspace.js";
import { buildNodeDrainStep, buildNodeOptionsEnv, NPM_SCRIPT_SHELL_ENV } from "./node-drain.js";
import { NODE_DOCKERIGNORE } from "./nextjs.js";
import { buildNodeOtelCopy, buildNodeOtelStage, NODE_REGISTER } from "./opentelemetry.js";
import { describeStartCommand, toStartCommand } from "../start-command.js";
import { type BaseImages, isFallbackNote, type Recipe, RecipeError, type SourceSnapshot } from "./types.js";

export interface NodeWorkerRecipeOptions {
  /** platform.yml's start: what the worker runs (`node worker.js`, `npm run worker`). Required. */
  readonly start?: string | readonly string[];
  /**
   * Zero-code OpenTelemetry, as for a Next.js service (NODE_OPTIONS=--require).
   * @default false
   */
  readonly instrument?: boolean;
  /**
   * The service has a migration: it runs from the build stage (every dependency, dev ones too),
   * and the prune moves to a stage of its own, as in the Next.js recipe.
   * @default false
   */
  readonly migrate?: boolean;
}

/** Words of a command line: what may name a program or a module (`tsx`, `ts-node/register`, `node_modules/.bin/tsx`). */
function toWords(text: string): string[] {
  return text.split(/[\s;&|()'"=`]+/).filter(Boolean);
}

/** The words of start and of the package.json scripts it names (`npm run worker`, `yarn worker`), one level deep. */
function toStartWords(start: string | readonly string[], p: NodePackage): string[] {
  const own = toWords(typeof start === "string" ? start : start.join(" "));
  return [...own, ...Object.entries(p.scripts).flatMap(([name, text]) => (own.includes(name) ? toWords(text) : []))];
}

/** The dev dependencies start runs: pruning would remove them, and the worker would fail at start. */
export function findStartDevDependencies(start: string | readonly string[], p: NodePackage): string[] {
  const words = toStartWords(start, p);
  const uses = (dep: string) => words.some((w) => w === dep || w.endsWith(`/.bin/${dep}`) || w.startsWith(`${dep}/`));
  return p.devDependencies.filter(uses);
}

export function buildNodeWorkerRecipe(src: SourceSnapshot, images: BaseImages, opts: NodeWorkerRecipeOptions = {}): Recipe {
  if (!opts.start) throw new RecipeError("a worker built from source needs start", "add start: (e.g. node worker.js or npm run worker)");
  const { pkg: _pkg, ...own } = detectNodePackage(src, "a Node.js worker needs a package.json with its dependencies");
  const ws = detectNodeWorkspace(src, own);
  const project = ws?.project ?? own;
  const installSrc = ws?.root ?? src;
  const at = ws ? `/app/${ws.member}` : "/app";
  const runtime = chooseNodeRuntime(project.nodeRequest, images.node, images.nodeVersions);
  const notes = [...project.notes, ...(project.managerNote ? [project.managerNote] : []), ...runtime.notes];

  const build = [
    `FROM ${runtime.image} AS build`,
    "WORKDIR /app",
    ...listInstallInputs(project, installSrc, ws !== undefined).map((f) => buildCopyStep(f)),
    buildNetworkRun(buildInstallCommand(project)),
    "COPY . .",
    ...(ws ? [`WORKDIR ${at}`] : []),
  ];
  const buildNote = project.buildScript ? `build script: "${project.buildScript}"` : "no build script: the source runs as it is";
  notes.push(buildNote);
  if (project.buildScript) {
    // It may read the service's variables (as next build does): it runs with them, again when they change.
    build.push(`ARG ${BUILD_ENV_HASH_ARG}`, buildNetworkRun(buildBuildCommand(project), { env: true }));
  }

  const used = findStartDevDependencies(opts.start, project);
  const prune = used.length > 0 || ws ? undefined : buildPruneCommand(project);
  if (used.length > 0) notes.push(`start runs ${used.join(", ")}, a devDependency: dev dependencies are kept in the image`);
  else if (ws) notes.push("pnpm workspace: dev dependencies are kept in the image");
  else if (!prune) notes.push("yarn (berry): dev dependencies are kept in the image");
  // With a migration, the prune runs in a stage of its own: the migrate stage keeps the build's dependencies.
  const pruned = prune && opts.migrate ? ["FROM build AS pruned", buildNetworkRun(prune)] : [];
  if (prune && !opts.migrate) build.push(buildNetworkRun(prune));
  const migrate = opts.migrate ? buildMigrateStage("ENV NODE_ENV=production") : [];
  if (opts.migrate) notes.push(MIGRATE_NOTE);

  const start = toStartCommand(opts.start);
  // bun is the build stage's (installed for bun.lock): the final image gets it only when start runs it.
  const withBun = project.manager === "bun" && toStartWords(opts.start, project).some((w) => w === "bun" || w === "bunx");
  const final = [
    `FROM ${runtime.image}`,
    "ENV NODE_ENV=production",
    buildCreateUserStep(),
    "WORKDIR /app",
    // Before the app's files: a code change then reuses the SDK's layers.
    buildNodeDrainStep(),
    ...(opts.instrument ? buildNodeOtelCopy() : []),
    buildNodeOptionsEnv(opts.instrument ? [NODE_REGISTER] : []),
    NPM_SCRIPT_SHELL_ENV,
    ...(withBun ? ["COPY --from=build /usr/local/bin/bun /usr/local/bin/bun"] : []),
    `COPY --from=${pruned.length ? "pruned" : "build"} --chown=app:app /app ./`,
    ...(ws ? [`WORKDIR ${at}`] : []),
    "USER app",
    `CMD ${JSON.stringify(start)}`,
  ];
  notes.push(`start: ${describeStartCommand(start)} (platform.yml start)`);

  const header = ["# Generated by platform for a Node.js worker.", ...notes.map((n) => `#   ${n}`)];
  const stages = [
    ...build,
    ...(migrate.length ? ["", ...migrate] : []),
    ...(pruned.length ? ["", ...pruned] : []),
    ...(opts.instrument ? ["", ...buildNodeOtelStage(runtime.image, images.otelLayers)] : []),
  ];
  return {
    dockerfile: `${[...header, "", ...stages, "", ...final].join("\n")}\n`,
    dockerignore: buildDockerignore(ws ? toWorkspaceIgnores(NODE_DOCKERIGNORE) : NODE_DOCKERIGNORE, installSrc.read(".dockerignore")),
    baseImage: runtime.image,
    ...(ws ? { context: { root: ws.rootDir, member: ws.member } } : {}),
    port: 0,
    start,
    notes,
    ...(opts.migrate ? { migrateTarget: MIGRATE_STAGE } : {}),
    summary: {
      install: [project.notes[0], project.managerNote].filter(Boolean).join("; "),
      runtime: runtime.notes[0] as string,
      // What the build does, on plan's "app:" line (a Next.js recipe's says what next build outputs).
      app: buildNote,
      start: notes.at(-1) as string,
      fallbacks: notes.filter(isFallbackNote),
      ...prismaSummary(notes),
    },
  };
}
