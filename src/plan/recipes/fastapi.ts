/**
 * The build recipe of a `fastapi` service given as `source`: a two-stage Dockerfile. The
 * first stage installs the dependencies into /opt/venv (manifests copied alone first, so
 * the install layer is reused while only code changes); the final stage is the base image,
 * that venv and the code, run by a non-root user with uvicorn on $PORT.
 */
import { HTTP_PORT } from "../constants.js";
import { detectFastapiApp, type FastapiApp } from "./detect-fastapi-app.js";
import { detectPythonProject, type PythonInstaller } from "./detect-python-installer.js";
import {
  buildCopyStep,
  buildCreateUserStep,
  MIGRATE_STAGE,
  buildDockerignore,
  buildNetworkRun,
  toShellWord,
  toWorkspaceIgnores,
} from "./dockerfile-parts.js";
import { choosePythonRuntime, detectPythonRequest } from "./python-version.js";
import { describeStartCommand, toStartCommand } from "../start-command.js";
import { POETRY_EXPORT_VERSION, POETRY_VERSION, UV_VERSION } from "./tool-versions.js";
import { buildPythonOtelCopy, buildPythonOtelStage, OTEL_PYTHON_SITECUSTOMIZE_ENV, OTEL_PYTHON_START_PREFIX } from "./opentelemetry.js";
import { type BaseImages, isFallbackNote, type Recipe, type SourceSnapshot } from "./types.js";

export interface FastapiRecipeOptions {
  /**
   * Zero-code OpenTelemetry: the SDK and instrumentations in a stage of their own (see
   * opentelemetry.ts), and the app started with the platform's start-up on its PYTHONPATH.
   * @default false
   */
  readonly instrument?: boolean;
  /** platform.yml's start: used as it is, and no app discovery happens. */
  readonly start?: string | readonly string[];
  /**
   * The service has a migration: when the project declares dependency groups beside the runtime
   * ones (alembic in a Poetry or uv dev group), it runs from a stage with every group installed,
   * built as the migration's image only (dockerfile-parts.ts MIGRATE_STAGE).
   * @default false
   */
  readonly migrate?: boolean;
}

const VENV = "/opt/venv";
/** uv and poetry live in their own venv in the build stage only: never in the final image. */
const TOOLS = "/opt/tools";
/**
 * The dependency installs see the service's variables (a private index URL, a build backend
 * that reads settings). They stay cached when only a value changes: packages follow the
 * manifests, not the variables.
 */
const ENV = { env: true } as const;

const DOCKERIGNORE = [
  ".git",
  ".venv",
  "venv",
  "**/__pycache__",
  "**/*.py[cod]",
  ".pytest_cache",
  ".mypy_cache",
  ".ruff_cache",
  ".tox",
  ".nox",
  ".coverage",
  "htmlcov",
  "node_modules",
  ".platform",
  // Local secrets: the platform injects configuration through the environment.
  ".env",
];

/** What instrumentation adds: a stage of its own, what the final stage copies from it, and the start command's prefix (shell). */
interface Instrumentation {
  readonly stage: string[];
  readonly copy: string[];
  readonly prefix: string;
}

function buildInstrumentation(opts: FastapiRecipeOptions, image: string, layers?: readonly string[]): Instrumentation {
  if (!opts.instrument) return { stage: [], copy: [], prefix: "" };
  const copy = buildPythonOtelCopy(VENV);
  // A platform.yml start line is not rewritten: the SDK starts through its sitecustomize instead.
  return {
    stage: buildPythonOtelStage(image, layers),
    copy: opts.start ? [...copy, OTEL_PYTHON_SITECUSTOMIZE_ENV] : copy,
    prefix: OTEL_PYTHON_START_PREFIX,
  };
}

/** uvicorn comes with it, or the recipe adds it: the start command needs it. */
function hasUvicorn(declared: readonly string[]): boolean {
  return declared.some((d) => /^\s*uvicorn\b/i.test(d) || /^\s*fastapi\s*\[[^\]]*\b(standard|all)\b/i.test(d));
}

interface InstallPlan {
  /** Steps before the manifests are copied (installing uv or poetry). */
  readonly tools: string[];
  /** Files copied before the dependency install. */
  readonly manifests: string[];
  readonly install: string;
  /** After the code is copied (installing the project itself), if anything. */
  readonly project?: string;
  /** Adds packages to the venv. */
  readonly add: (packages: string[]) => string;
  readonly env: string[];
  /** Build context relative to the service directory, and the service's place in it (workspaces). */
  readonly context?: { readonly root: string; readonly member: string };
  /** Installs every dependency group too (dev, test), with the code there: the migrate stage's step. */
  readonly allGroups?: string;
}

function buildInstallPlan(installer: PythonInstaller): InstallPlan {
  const uv = `${TOOLS}/bin/uv`;
  const pipAdd = (pkgs: string[]) => `${VENV}/bin/pip install ${pkgs.map(toShellWord).join(" ")}`;
  const uvAdd = (pkgs: string[]) => `${uv} pip install --python ${VENV}/bin/python ${pkgs.map(toShellWord).join(" ")}`;
  const installUv = buildNetworkRun(`python3 -m venv ${TOOLS} && ${TOOLS}/bin/pip install uv==${UV_VERSION}`);
  // UV_PYTHON: the base image's interpreter, whatever .python-version says; never download one.
  const uvEnv = [
    `UV_PROJECT_ENVIRONMENT=${VENV}`,
    "UV_PYTHON=python3",
    "UV_PYTHON_DOWNLOADS=never",
    "UV_COMPILE_BYTECODE=1",
    "UV_LINK_MODE=copy",
    "UV_NO_CACHE=1",
  ];
  switch (installer.kind) {
    case "uv-lock":
      return {
        tools: [installUv],
        manifests: ["pyproject.toml", "uv.lock"],
        install: buildNetworkRun(`${uv} sync --frozen --no-dev --no-install-project`, ENV),
        // --inexact: keep what was added to the venv besides the lock (uvicorn, instrumentation).
        project: installer.installProject ? buildNetworkRun(`${uv} sync --frozen --no-dev --no-editable --inexact`, ENV) : undefined,
        add: uvAdd,
        env: uvEnv,
        allGroups: buildNetworkRun(
          `${uv} sync --frozen --inexact --all-groups ${installer.installProject ? "--no-editable" : "--no-install-project"}`,
          ENV,
        ),
      };
    case "uv-workspace": {
      const pkg = `--package ${toShellWord(installer.packageName)}`;
      return {
        tools: [installUv],
        // The root's manifest and lock are enough for the dependencies (--no-install-workspace).
        manifests: ["pyproject.toml", "uv.lock"],
        install: buildNetworkRun(`${uv} sync --frozen --no-dev --no-install-workspace ${pkg}`, ENV),
        project: buildNetworkRun(`${uv} sync --frozen --no-dev --no-editable --inexact ${pkg}`, ENV),
        add: uvAdd,
        env: uvEnv,
        context: { root: installer.root, member: installer.member },
        allGroups: buildNetworkRun(`${uv} sync --frozen --inexact --all-groups --no-editable ${pkg}`, ENV),
      };
    }
    case "poetry":
      return {
        tools: [
          buildNetworkRun(
            `python3 -m venv ${TOOLS} && ${TOOLS}/bin/pip install poetry==${POETRY_VERSION}${installer.locked ? ` poetry-plugin-export==${POETRY_EXPORT_VERSION}` : ""}`,
          ),
        ],
        manifests: installer.locked ? ["pyproject.toml", "poetry.lock"] : ["pyproject.toml"],
        // A lock is exported (exact versions and hashes, read from poetry.lock alone) and
        // installed by pip: pip needs only the index's simple API, where Poetry's installer also
        // needs the JSON API, which mirrors and proxies often lack; and old lock formats export.
        // Without a lock, Poetry resolves and installs into the active venv (VIRTUAL_ENV).
        install: buildNetworkRun(
          installer.locked
            ? `python3 -m venv ${VENV} && ${TOOLS}/bin/poetry export --only main --format requirements.txt --output /tmp/poetry-requirements.txt && ${VENV}/bin/pip install --no-deps -r /tmp/poetry-requirements.txt`
            : `python3 -m venv ${VENV} && ${TOOLS}/bin/poetry install --only main --no-root --no-interaction --no-ansi`,
          ENV,
        ),
        add: pipAdd,
        env: ["POETRY_VIRTUALENVS_CREATE=false", "POETRY_NO_INTERACTION=1", "POETRY_CACHE_DIR=/tmp/poetry-cache"],
        allGroups: buildNetworkRun(
          installer.locked
            ? `${TOOLS}/bin/poetry export --all-groups --format requirements.txt --output /tmp/poetry-all-requirements.txt && ${VENV}/bin/pip install --no-deps -r /tmp/poetry-all-requirements.txt`
            : `${TOOLS}/bin/poetry install --all-groups --no-root --no-interaction --no-ansi`,
          ENV,
        ),
      };
    case "requirements":
      return {
        tools: [],
        manifests: installer.needsSource ? [] : [...installer.files],
        install: buildNetworkRun(`python3 -m venv ${VENV} && ${VENV}/bin/pip install -r requirements.txt`, ENV),
        add: pipAdd,
        env: [],
      };
    case "pyproject":
      return {
        tools: [installUv],
        manifests: installer.dynamicDependencies ? [] : ["pyproject.toml"],
        install: buildNetworkRun(`${uv} venv ${VENV} && ${uv} pip install --python ${VENV}/bin/python -r pyproject.toml`, ENV),
        project: installer.installProject ? buildNetworkRun(`${uv} pip install --python ${VENV}/bin/python --no-deps .`, ENV) : undefined,
        add: uvAdd,
        env: uvEnv,
      };
  }
}

/** Shell form, so $PORT expands; exec, so uvicorn is PID 1 and a SIGTERM stops it gracefully. */
function buildStart(app: FastapiApp, prefix: string): string[] {
  const appDir = app.appDir ? ` --app-dir ${toShellWord(app.appDir)}` : "";
  const factory = app.factory ? " --factory" : "";
  return ["/bin/sh", "-c", `exec ${prefix}uvicorn ${app.module}:${app.variable}${factory} --host 0.0.0.0 --port "$PORT"${appDir}`];
}

export function buildFastapiRecipe(src: SourceSnapshot, images: BaseImages, opts: FastapiRecipeOptions = {}): Recipe {
  const project = detectPythonProject(src);
  const app = opts.start ? undefined : detectFastapiApp(src, project.pyproject?.fastapiEntrypoint);
  const runtime = choosePythonRuntime(
    detectPythonRequest((p) => src.read(p), project.pyproject, src.workspace && ((p) => src.workspace?.snapshot.read(p))),
    images.python,
    images.pythonVersions,
  );
  const instrumentation = buildInstrumentation(opts, runtime.image, images.otelLayers);
  const plan = buildInstallPlan(project.installer);
  const notes = [...project.notes, ...runtime.notes, ...(app ? [app.note] : [])];

  const extras: string[] = [];
  const start = app ? buildStart(app, instrumentation.prefix) : toStartCommand(opts.start as string | string[]);
  // Only a start that runs uvicorn needs it (a worker's celery or arq does not).
  if (!hasUvicorn(project.declared) && /\buvicorn\b/.test(describeStartCommand(start))) {
    extras.unshift("uvicorn[standard]");
    notes.push("uvicorn is not among the declared dependencies: adding uvicorn[standard] (unpinned; declare it to pin it)");
  }
  notes.push(`start: ${describeStartCommand(start)}${app ? "" : " (platform.yml start)"}`);

  const build = [
    `FROM ${runtime.image} AS build`,
    `ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 VIRTUAL_ENV=${VENV} PATH=${VENV}/bin:$PATH${plan.env.map((e) => ` ${e}`).join("")}`,
    "WORKDIR /app",
    ...plan.tools,
    ...plan.manifests.map((f) => buildCopyStep(f)),
    ...(plan.manifests.length === 0 ? ["COPY . ."] : []),
    plan.install,
    ...(extras.length ? [buildNetworkRun(plan.add(extras))] : []),
    ...(plan.project ? [...(plan.manifests.length ? ["COPY . ."] : []), plan.project] : []),
  ];
  const runtimeEnv = `ENV PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 VIRTUAL_ENV=${VENV} PATH=${VENV}/bin:$PATH PORT=${HTTP_PORT}`;
  const final = [
    `FROM ${runtime.image}`,
    runtimeEnv,
    // The service is reached through the platform's edge proxy, never directly: uvicorn may
    // trust its X-Forwarded-* headers, so that redirects and url_for keep https.
    'ENV FORWARDED_ALLOW_IPS="*"',
    buildCreateUserStep(),
    "WORKDIR /app",
    `COPY --from=build ${VENV} ${VENV}`,
    ...instrumentation.copy,
    // Owned by the app user, as in the Next.js images and on Heroku, Render or buildpacks: apps
    // write beside their code (a logs/ or upload/ directory, celery.log), and failed at start when
    // it was root's. The installed dependencies (the venv) stay root's and read-only.
    "COPY --chown=app:app . .",
    ...(plan.context ? [`WORKDIR /app/${plan.context.member}`] : []),
    "USER app",
    `EXPOSE ${HTTP_PORT}`,
    app ? `CMD ${start[2]}` : `CMD ${JSON.stringify(start)}`,
  ];
  // A migration whose tools sit in a dependency group (alembic in Poetry's or uv's dev group) runs
  // from a stage with every group installed; the service's image keeps the runtime ones.
  const groups = project.pyproject?.devGroups ?? [];
  const migrate =
    opts.migrate && groups.length > 0 && plan.allGroups
      ? [
          `FROM build AS ${MIGRATE_STAGE}`,
          "COPY . .",
          plan.allGroups,
          runtimeEnv,
          buildCreateUserStep(),
          ...(plan.context ? [`WORKDIR /app/${plan.context.member}`] : []),
          "USER app",
        ]
      : [];
  if (migrate.length)
    notes.splice(
      notes.length - 1,
      0,
      `migrate: runs from a stage with every dependency group installed (${groups.join(", ")}); the service's image keeps only the runtime dependencies`,
    );
  const header = ["# Generated by platform for a FastAPI service.", ...notes.map((n) => `#   ${n}`)];
  const stages = [
    ...build,
    ...(migrate.length ? ["", ...migrate] : []),
    ...(instrumentation.stage.length ? ["", ...instrumentation.stage] : []),
  ];
  const dockerfile = `${[...header, "", ...stages, "", ...final].join("\n")}\n`;
  const summary = {
    install:
      project.notes.find((n) => /: installing with |without a lockfile|without poetry\.lock/.test(n)) ?? (project.notes[0] as string),
    runtime: runtime.notes[0] as string,
    app: app?.note,
    start: notes.at(-1) as string,
    fallbacks: notes.filter(isFallbackNote),
  };
  const ignoreFrom = plan.context ? (src.workspace?.snapshot ?? src) : src;
  const dockerignore = buildDockerignore(plan.context ? toWorkspaceIgnores(DOCKERIGNORE) : DOCKERIGNORE, ignoreFrom.read(".dockerignore"));
  return {
    dockerfile,
    dockerignore,
    baseImage: runtime.image,
    ...(plan.context ? { context: plan.context } : {}),
    port: HTTP_PORT,
    start,
    notes,
    summary,
    ...(migrate.length ? { migrateTarget: MIGRATE_STAGE } : {}),
  };
}
