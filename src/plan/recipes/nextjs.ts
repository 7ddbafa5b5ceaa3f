/**
 * The build recipe of a `nextjs` service given as `source`: install with the project's
 * package manager (lockfile first, so the install layer is reused while only code changes),
 * `next build`, then a final stage with only what runs: the standalone server when
 * next.config asks for it, else the app with production dependencies and `next start`.
 */
import { prismaSummary } from "./prisma.js";
import { HTTP_PORT } from "../constants.js";
import { detectNodeProject } from "./detect-node-project.js";
import { detectNodeWorkspace } from "./node-workspace.js";
import { chooseNodeRuntime } from "./node-version.js";
import {
  BUILD_ENV_HASH_ARG,
  buildCopyStep,
  buildCreateUserStep,
  buildDockerignore,
  buildNetworkRun,
  toWorkspaceIgnores,
  buildMigrateStage,
  MIGRATE_NOTE,
  MIGRATE_STAGE,
} from "./dockerfile-parts.js";
import { buildBuildCommand, buildInstallCommand, buildPruneCommand, listInstallInputs } from "./node-install.js";
import { describeStartCommand, toStartCommand } from "../start-command.js";
import { buildNodeDrainStep, buildNodeOptionsEnv, NPM_SCRIPT_SHELL_ENV } from "./node-drain.js";
import { buildCheckedPrune, buildNextScriptsStep, wrapNextBuild } from "./next-build-scripts.js";
import { buildNodeOtelCopy, buildNodeOtelStage, NODE_REGISTER } from "./opentelemetry.js";
import { type BaseImages, isFallbackNote, type Recipe, type SourceSnapshot } from "./types.js";

/** What never enters a Node image's build context (the worker recipe's too). */
export const NODE_DOCKERIGNORE = [
  ".git",
  "node_modules",
  "**/node_modules",
  ".next",
  "out",
  "coverage",
  ".turbo",
  ".vercel",
  "npm-debug.log*",
  "yarn-debug.log*",
  "yarn-error.log*",
  ".platform",
  // Next.js's convention for machine-local secrets; .env and .env.production are build inputs.
  ".env*.local",
];

export interface NextjsRecipeOptions {
  /** platform.yml's start: replaces the server command (server.js or next start). */
  readonly start?: string | readonly string[];
  /**
   * Zero-code OpenTelemetry: Node's auto-instrumentations in a stage of their own, loaded
   * before the app with NODE_OPTIONS=--require (see opentelemetry.ts).
   * @default false
   */
  readonly instrument?: boolean;
  /**
   * The service has a `migrate:` command: a `migrate` stage (the build stage, every dependency
   * installed, dev ones too) is what its migration runs from, so drizzle-kit, prisma or knex as
   * devDependencies are found; the service's own image keeps only what it needs to run.
   * @default false
   */
  readonly migrate?: boolean;
}

export function buildNextjsRecipe(src: SourceSnapshot, images: BaseImages, opts: NextjsRecipeOptions = {}): Recipe {
  const own = detectNodeProject(src);
  const ws = detectNodeWorkspace(src, own);
  const project = ws?.project ?? own;
  const installSrc = ws?.root ?? src;
  const at = ws ? `/app/${ws.member}` : "/app";
  const runtime = chooseNodeRuntime(project.nodeRequest, images.node, images.nodeVersions);
  const managerNote = project.managerNote;
  const notes = [...project.notes, ...(managerNote ? [managerNote] : []), ...runtime.notes];
  const hasPublic = src.files.some((f) => f.startsWith("public/"));

  const manifests = listInstallInputs(project, installSrc, ws !== undefined);
  const build = [
    `FROM ${runtime.image} AS build`,
    "ENV NEXT_TELEMETRY_DISABLED=1",
    "WORKDIR /app",
    ...manifests.map((f) => buildCopyStep(f)),
    buildNetworkRun(buildInstallCommand(project)),
    buildNextScriptsStep(),
    "COPY . .",
    ...(ws ? [`WORKDIR ${at}`] : []),
    // next build imports the app's modules and inlines NEXT_PUBLIC_* values: it runs with the
    // service's variables, and again whenever one of them changes (the hash argument).
    `ARG ${BUILD_ENV_HASH_ARG}`,
    // The build may download too (next/font/google, or the npm font packages that stand in for
    // Google Fonts when it cannot be reached): it gets the CA as well.
    buildNetworkRun(wrapNextBuild(buildBuildCommand(project)), { env: true }),
  ];

  let start: string[];
  let final: string[];
  /** The stage the final image copies the app from (the build stage, or its pruned copy). */
  let pruned: string[] = [];
  const env = `ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 PORT=${HTTP_PORT} HOSTNAME=0.0.0.0`;
  if (project.standalone) {
    // server.js reads PORT and HOSTNAME; HOSTNAME must be set, Docker sets it to the container id.
    start = ["node", "server.js"];
    final = [
      `FROM ${runtime.image}`,
      env,
      buildCreateUserStep(),
      "WORKDIR /app",
      // In a workspace, next traces from the workspace root: the server sits at <member>/server.js.
      `COPY --from=build --chown=app:app ${at}/.next/standalone ./`,
      ...(ws ? [`WORKDIR ${at}`] : []),
      `COPY --from=build --chown=app:app ${at}/.next/static ./.next/static`,
      ...(hasPublic ? [`COPY --from=build --chown=app:app ${at}/public ./public`] : []),
    ];
  } else {
    const prune = project.nextIsDevDependency || ws ? undefined : buildPruneCommand(project);
    if (project.nextIsDevDependency)
      notes.push("next is a devDependency: dev dependencies are kept in the image (move next to dependencies)");
    else if (ws) notes.push('pnpm workspace: dev dependencies are kept in the image (output: "standalone" makes it small)');
    else if (!prune) notes.push("yarn (berry): dev dependencies are kept in the image");
    // next start loads next.config: the prune stands only if the config still loads after it.
    // With a migration, the prune runs in a stage of its own: the migrate stage keeps the build's dependencies.
    const pruneStep = prune
      ? buildNetworkRun(`${buildCheckedPrune(prune, buildInstallCommand(project))} && rm -rf .next/cache`)
      : "RUN rm -rf .next/cache";
    if (opts.migrate && prune) pruned = ["FROM build AS pruned", pruneStep];
    else build.push(pruneStep);
    // The start script decides only when it asks for bun; else next start runs on Node.
    const withBun = project.manager === "bun" && project.startsWithBun;
    start = ["/bin/sh", "-c", withBun ? "exec bun run start" : `exec node_modules/.bin/next start -p "$PORT" -H 0.0.0.0`];
    if (withBun) notes.push("the start script runs bun: running bun run start (next start reads $PORT)");
    final = [
      `FROM ${runtime.image}`,
      env,
      buildCreateUserStep(),
      "WORKDIR /app",
      ...(withBun ? ["COPY --from=build /usr/local/bin/bun /usr/local/bin/bun"] : []),
      // The app user owns it: next start writes its cache under .next.
      `COPY --from=${pruned.length ? "pruned" : "build"} --chown=app:app /app ./`,
      ...(ws ? [`WORKDIR ${at}`] : []),
    ];
  }
  if (opts.start) start = toStartCommand(opts.start);
  // Before the app's files: a code change then reuses the SDK's layers instead of copying them again.
  const preloads = [
    buildNodeDrainStep(),
    ...(opts.instrument ? buildNodeOtelCopy() : []),
    buildNodeOptionsEnv(opts.instrument ? [NODE_REGISTER] : []),
    NPM_SCRIPT_SHELL_ENV,
  ];
  final.splice(final.indexOf("WORKDIR /app") + 1, 0, ...preloads);
  final.push("USER app", `EXPOSE ${HTTP_PORT}`, start[0] === "/bin/sh" && !opts.start ? `CMD ${start[2]}` : `CMD ${JSON.stringify(start)}`);
  notes.push(
    opts.start
      ? `start: ${describeStartCommand(start)} (platform.yml start)`
      : `start: ${start[0] === "/bin/sh" ? start[2] : start.join(" ")}`,
  );

  const migrate = opts.migrate ? buildMigrateStage(env) : [];
  // Before the start note, which the summary reads last.
  if (opts.migrate) notes.splice(notes.length - 1, 0, MIGRATE_NOTE);
  const header = ["# Generated by platform for a Next.js service.", ...notes.map((n) => `#   ${n}`)];
  const stages = [
    ...build,
    ...(migrate.length ? ["", ...migrate] : []),
    ...(pruned.length ? ["", ...pruned] : []),
    ...(opts.instrument ? ["", ...buildNodeOtelStage(runtime.image, images.otelLayers)] : []),
  ];
  const dockerfile = `${[...header, "", ...stages, "", ...final].join("\n")}\n`;
  const summary = {
    install: [project.notes[0], managerNote].filter(Boolean).join("; "),
    runtime: runtime.notes[0] as string,
    app: notes.find((n) => /output "standalone"/.test(n)),
    start: notes.at(-1) as string,
    fallbacks: notes.filter(isFallbackNote),
    ...prismaSummary(notes),
    ...(opts.migrate ? { migrate: MIGRATE_NOTE } : {}),
  };
  const dockerignore = buildDockerignore(ws ? toWorkspaceIgnores(NODE_DOCKERIGNORE) : NODE_DOCKERIGNORE, installSrc.read(".dockerignore"));
  return {
    dockerfile,
    dockerignore,
    baseImage: runtime.image,
    ...(ws ? { context: { root: ws.rootDir, member: ws.member } } : {}),
    port: HTTP_PORT,
    start,
    notes,
    summary,
    ...(opts.migrate ? { migrateTarget: MIGRATE_STAGE } : {}),
  };
}
