/**
 * Zero-code OpenTelemetry in the generated images. The SDK and instrumentations are installed
 * in a stage of their own that depends only on the base image, so the layer is built once and
 * reused by every build (a code or dependency change never reinstalls it), into a directory of
 * their own, so they never replace a package the app installed:
 *   - Python: /opt/otel (pip --target), put at the END of the app venv's sys.path by a .pth
 *     file. The app's own packages win; an instrumentation whose library the app lacks stays
 *     off; if the SDK cannot start (a package version the app pins that it cannot use), it
 *     logs one line and the app runs uninstrumented. The platform's distro starts it
 *     (images/otel-python: platform_opentelemetry_distro/start.py).
 *   - Node: /opt/otel-node/node_modules, loaded with NODE_OPTIONS=--require; it resolves its
 *     own dependencies from there, and hooks the app's modules (http, undici/fetch, pg) by name.
 * The pins move together: check `pip download --no-deps opentelemetry-instrumentation-psycopg==X`
 * (every instrumentation must exist at the contrib version) and `npm view
 * @opentelemetry/auto-instrumentations-node dependencies`. The platform's Python distro
 * (images/otel-python) uses two seams of these pins, tested against them in
 * test/unit/telemetry/otel-python-distro.test.ts.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { buildNetworkRun, toShellWord, writeLines } from "./dockerfile-parts.js";

/** The SDK release and the contrib release made with it (contrib 0.66b2 lacks psycopg and psycopg2). */
export const OTEL_PYTHON_SDK_VERSION = "1.45.1";
export const OTEL_PYTHON_CONTRIB_VERSION = "0.66b1";

/**
 * What `opentelemetry-instrument` loads from contrib: HTTP clients and database drivers. The
 * web server (FastAPI) is the platform's own instrumentation, in its distro (below).
 */
const PYTHON_INSTRUMENTATIONS = ["httpx", "requests", "psycopg", "psycopg2", "asyncpg", "sqlalchemy"];

export const OTEL_PYTHON_PACKAGES: readonly string[] = [
  `opentelemetry-distro==${OTEL_PYTHON_CONTRIB_VERSION}`,
  `opentelemetry-sdk==${OTEL_PYTHON_SDK_VERSION}`,
  `opentelemetry-exporter-otlp-proto-http==${OTEL_PYTHON_SDK_VERSION}`,
  ...PYTHON_INSTRUMENTATIONS.map((i) => `opentelemetry-instrumentation-${i}==${OTEL_PYTHON_CONTRIB_VERSION}`),
];

export const OTEL_NODE_AUTO_VERSION = "0.82.0";
/** The sdk-node that auto-instrumentations-node 0.82.0 depends on (^0.300.0). */
export const OTEL_NODE_SDK_VERSION = "0.300.0";
export const OTEL_NODE_PACKAGES: readonly string[] = [
  `@opentelemetry/auto-instrumentations-node@${OTEL_NODE_AUTO_VERSION}`,
  `@opentelemetry/sdk-node@${OTEL_NODE_SDK_VERSION}`,
  // What the platform's register script requires itself: the exact versions sdk-node pins.
  "@opentelemetry/core@3.0.0",
];

export const OTEL_PYTHON_DIR = "/opt/otel";
/** Holds lib/pythonX.Y/site-packages/<pth>, copied over the app's venv. */
const OTEL_PYTHON_SITE = "/opt/otel-site";
export const OTEL_NODE_DIR = "/opt/otel-node";
const STAGE = "opentelemetry";
const PTH = "zz-platform-opentelemetry.pth";

/** The platform's sitecustomize (images/otel-python/platform-start): first on PYTHONPATH, it starts OpenTelemetry before the app. */
const OTEL_PYTHON_START = `${OTEL_PYTHON_DIR}/platform-start`;

/**
 * The start command's prefix (shell): the app's command runs with the PYTHONPATH that
 * `opentelemetry-instrument` gave it (its sitecustomize, the working directory, the service's
 * own PYTHONPATH), without that launcher: a Python process started only to exec the app, a
 * quarter of a second of a 0.5-CPU container's start.
 */
export const OTEL_PYTHON_START_PREFIX = `env PYTHONPATH="${OTEL_PYTHON_START}:$PWD\${PYTHONPATH:+:$PYTHONPATH}" `;

/**
 * The platform's distro, selected with OTEL_PYTHON_DISTRO=platform: OpenTelemetry's own, plus
 * the platform's FastAPI instrumentation (entry point "fastapi"): one pure-ASGI middleware, one
 * server span and one duration histogram per request, the route template taken from FastAPI's
 * router (contrib's FastAPI/ASGI middleware cost a quarter of a small endpoint's CPU), and span
 * batches encoded to OTLP protobuf without the exporter's per-field messages. Python sources
 * and dist-info in images/otel-python/, written into /opt/otel.
 */
const DISTRO_DIR = fileURLToPath(new URL("../../../images/otel-python/", import.meta.url));

let distroFiles: { path: string; lines: string[] }[] | undefined;

/** The files of images/otel-python (paths relative to it, sorted), read once. */
function readDistroFiles(): { path: string; lines: string[] }[] {
  distroFiles ??= readdirSync(DISTRO_DIR, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name !== ".DS_Store" && !e.name.endsWith(".pyc"))
    .map((e) => relative(DISTRO_DIR, join(e.parentPath, e.name)))
    .sort()
    .map((path) => ({ path, lines: readFileSync(join(DISTRO_DIR, path), "utf8").replace(/\n$/, "").split("\n") }));
  return distroFiles;
}

/**
 * Writes the files, and compiles the Python ones: the app runs as a user who cannot write
 * /opt/otel (and with PYTHONDONTWRITEBYTECODE), so without their bytecode every start would
 * compile them again. pip compiled the rest of /opt/otel.
 */
function buildDistroStep(): string {
  const files = readDistroFiles();
  const dirs = [...new Set(files.map((f) => `${OTEL_PYTHON_DIR}/${dirname(f.path)}`))];
  const pyDirs = [...new Set(files.filter((f) => f.path.endsWith(".py")).map((f) => `${OTEL_PYTHON_DIR}/${dirname(f.path)}`))];
  const write = files.map((f) => writeLines(`${OTEL_PYTHON_DIR}/${f.path}`, f.lines)).join(" && ");
  return `RUN mkdir -p ${dirs.join(" ")} && ${write} && python3 -m compileall -q ${pyDirs.join(" ")}`;
}

/**
 * An OpenTelemetry stage as an image of its own, which the set-up builds once per machine
 * (scripts/setup/project.sh): its tag is the hash of the stage's text, so a recipe uses it only
 * when it is exactly what the stage would build. A first deploy then copies the SDK instead of
 * installing it beside the app's own build (about 35 s of npm install on 2 cores).
 */
export function otelLayer(stage: readonly string[]): { tag: string; dockerfile: string } {
  const body = stage.slice(1);
  const from = (stage[0] ?? "").replace(/ AS \S+$/, "");
  const dockerfile = `${[from, ...body].join("\n")}\n`;
  return { tag: `platform-local/otel-layer:${createHash("sha256").update(dockerfile).digest("hex").slice(0, 12)}`, dockerfile };
}

/** The stage itself, or one line that starts it from the set-up's layer image when there is one. */
function fromLayerWhenBuilt(stage: string[], layers: readonly string[] | undefined): string[] {
  const { tag } = otelLayer(stage);
  return layers?.includes(tag) ? [`FROM ${tag} AS ${STAGE}`] : stage;
}

/** The Python stage: `FROM <base> AS opentelemetry`, the install, and the .pth for the venv. */
export function buildPythonOtelStage(image: string, layers?: readonly string[]): string[] {
  return fromLayerWhenBuilt(pythonOtelStage(image), layers);
}

function pythonOtelStage(image: string): string[] {
  const site = `${OTEL_PYTHON_SITE}/lib/python$(python3 -c "import sysconfig; print(sysconfig.get_python_version())")/site-packages`;
  return [
    `FROM ${image} AS ${STAGE}`,
    "ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1",
    buildNetworkRun(`python3 -m pip install --quiet --target ${OTEL_PYTHON_DIR} ${OTEL_PYTHON_PACKAGES.map(toShellWord).join(" ")}`),
    `RUN d=${site} && mkdir -p "$d" && echo ${OTEL_PYTHON_DIR} > "$d/${PTH}"`,
    buildDistroStep(),
  ];
}

/** Final-stage steps after the venv is copied: the SDK, and its path at the end of the venv's. */
export function buildPythonOtelCopy(venv: string): string[] {
  return [
    `COPY --from=${STAGE} ${OTEL_PYTHON_DIR} ${OTEL_PYTHON_DIR}`,
    `COPY --from=${STAGE} ${OTEL_PYTHON_SITE}/ ${venv}/`,
    `${IMAGE_DEFAULTS} OTEL_PYTHON_DISTRO=platform`,
  ];
}

/**
 * Defaults baked into the image for a run outside the platform (docker run): the exporters
 * this image has. The platform's variables set the same and more.
 */
const IMAGE_DEFAULTS = "ENV OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf OTEL_LOGS_EXPORTER=none";

/**
 * A platform.yml start command is a shell line the recipe does not rewrite: the same start-up,
 * through the image's PYTHONPATH.
 */
export const OTEL_PYTHON_SITECUSTOMIZE_ENV = `ENV PYTHONPATH=${OTEL_PYTHON_START}`;

/**
 * The platform's start-up for Node: what auto-instrumentations-node's register does (the SDK
 * from the OTEL_* variables, every auto-instrumentation), plus one span processor. Node's HTTP
 * instrumentation does not know a framework's routes; Next.js sets `next.route` on its own
 * request span, and the processor hands it to the HTTP server span's RPC metadata, which the
 * HTTP instrumentation puts on the server span and on its duration metric as `http.route`.
 */
export const NODE_REGISTER = `${OTEL_NODE_DIR}/platform-register.cjs`;
const NODE_REGISTER_SOURCE = [
  "// The OpenTelemetry start-up of the platform (generated): register of auto-instrumentations-node, plus http.route from Next.js.",
  'const { diag, DiagConsoleLogger } = require("@opentelemetry/api");',
  'const { getRPCMetadata, RPCType, diagLogLevelFromString } = require("@opentelemetry/core");',
  'const { NodeSDK } = require("@opentelemetry/sdk-node");',
  'const { getNodeAutoInstrumentations } = require("@opentelemetry/auto-instrumentations-node");',
  'const { join, dirname } = require("node:path");',
  'const { getSpanProcessorsFromEnv } = require(join(dirname(require.resolve("@opentelemetry/sdk-node")), "utils.cjs"));',
  "if (process.env.OTEL_LOG_LEVEL) diag.setLogger(new DiagConsoleLogger(), { logLevel: diagLogLevelFromString(process.env.OTEL_LOG_LEVEL) });",
  'const ROUTE_KEYS = ["next.route", "http.route"];',
  "class RouteToHttpServer {",
  "  onStart(span, parent) {",
  "    const md = getRPCMetadata(parent);",
  "    if (!md || md.type !== RPCType.HTTP || md.span === span) return;",
  '    const take = (v) => { if (typeof v === "string" && v !== "" && md.route === undefined) md.route = v; };',
  "    const setAttribute = span.setAttribute.bind(span);",
  "    const setAttributes = span.setAttributes.bind(span);",
  "    span.setAttribute = (k, v) => { if (ROUTE_KEYS.includes(k)) take(v); return setAttribute(k, v); };",
  "    span.setAttributes = (a) => { for (const k of ROUTE_KEYS) if (a && k in a) take(a[k]); return setAttributes(a); };",
  "    for (const k of ROUTE_KEYS) take(span.attributes && span.attributes[k]);",
  "  }",
  "  onEnd() {}",
  "  forceFlush() { return Promise.resolve(); }",
  "  shutdown() { return Promise.resolve(); }",
  "}",
  "const sdk = new NodeSDK({ instrumentations: getNodeAutoInstrumentations(), spanProcessors: [new RouteToHttpServer(), ...getSpanProcessorsFromEnv()] });",
  'try { sdk.start(); } catch (e) { diag.error("OpenTelemetry did not start; the app runs uninstrumented", e); }',
  "const stop = () => sdk.shutdown().catch(() => undefined);",
  // Not the app's own handler: the platform's drain (platform-drain.cjs) still stops an app that has none.
  'stop[Symbol.for("platform.sigterm")] = true;',
  'process.on("SIGTERM", stop);',
  'process.once("beforeExit", stop);',
];

export function buildNodeOtelStage(image: string, layers?: readonly string[]): string[] {
  return fromLayerWhenBuilt(nodeOtelStage(image), layers);
}

function nodeOtelStage(image: string): string[] {
  return [
    `FROM ${image} AS ${STAGE}`,
    `WORKDIR ${OTEL_NODE_DIR}`,
    buildNetworkRun(`npm init -y >/dev/null && npm install --no-audit --no-fund --omit=dev --save-exact ${OTEL_NODE_PACKAGES.join(" ")}`),
    `RUN ${writeLines(NODE_REGISTER, NODE_REGISTER_SOURCE)}`,
  ];
}

/** Final-stage steps: the SDK beside the app; NODE_REGISTER goes in NODE_OPTIONS (node-drain.ts), so every node process starts it first. */
export function buildNodeOtelCopy(): string[] {
  return [
    `COPY --from=${STAGE} ${OTEL_NODE_DIR}/node_modules ${OTEL_NODE_DIR}/node_modules`,
    `COPY --from=${STAGE} ${NODE_REGISTER} ${NODE_REGISTER}`,
    // File, DNS and socket spans would bury the HTTP and database ones.
    "ENV OTEL_NODE_DISABLED_INSTRUMENTATIONS=fs,dns,net",
    IMAGE_DEFAULTS,
  ];
}

/** The layers the set-up builds: one per language, from the base images. */
export function otelLayersFor(images: { python: string; node: string }): { tag: string; dockerfile: string }[] {
  return [otelLayer(pythonOtelStage(images.python)), otelLayer(nodeOtelStage(images.node))];
}
