import { resolve } from "node:path";
import {
  type Config,
  DEFAULT_POSTGRES_VERSION,
  parseDuration,
  parseTemplate,
  referencedSecrets,
  type ServiceConfig,
  type TemplatePart,
} from "../config/index.js";
import {
  DATABASE_CA_FILE,
  DATABASE_CERT_FILE,
  DATABASE_KEY_FILE,
  DEFAULT_HEALTH_TIMEOUT_SECONDS,
  HTTP_PORT,
  POSTGRES_PORT,
  REDIS_PORT,
} from "./constants.js";
import { orderByDependencies } from "./graph.js";
import { hostPrefix, stackName, stackPrefix } from "./naming.js";
import { buildFastapiRecipe, buildNextjsRecipe, RecipeError, type SourceSnapshot } from "./recipes/index.js";
import { PUBLIC_REDIS_IMAGE, REDIS_HEALTH, REDIS_NO_PASSWORD_COMMAND, redisEnv, redisSpec } from "./redis.js";
import { toStartCommand } from "./start-command.js";
import { WAL_ARCHIVE_PATH } from "./wal-archive.js";
import { buildWorkerRecipe, WORKER_HEALTH, WORKER_STOP_GRACE_SECONDS } from "./worker.js";
import { buildTelemetryEnv, sampleRatioOf } from "./otel-env.js";
import type { BuildSpec, DatabaseSpec, HealthSpec, Plan, PlanContext, PlannedService, RedisSpec } from "./types.js";

/** Postgres identity inside a stack; the password is generated per stack by the target. */
export const DB_USER = "app";
export const DB_NAME = "app";
const PGDATA = "/var/lib/postgresql/data";
/**
 * Over the local socket (trusted), with the password from the container's own environment:
 * psql reads it with \getenv, so it is never in a process's argument list (visible in ps).
 */
export const SYNC_PASSWORD = [
  "sh",
  "-c",
  `printf '%s\\n' '\\getenv pw POSTGRES_PASSWORD' "ALTER ROLE CURRENT_USER PASSWORD :'pw';" | psql -v ON_ERROR_STOP=1 -q --no-psqlrc -U "$POSTGRES_USER" -d "$POSTGRES_DB"`,
];

/**
 * The server's command: TLS on, with the stack's certificate (written into the container before
 * it starts). pg_hba's `host` lines match TLS and plain connections alike, so clients with
 * sslmode=disable keep working; `-c` options work with the official image's entrypoint too.
 */
export function postgresCommand(tls: DatabaseSpec["tls"]): string[] {
  return ["postgres", "-c", "ssl=on", "-c", `ssl_cert_file=${tls.certFile}`, "-c", `ssl_key_file=${tls.keyFile}`];
}

/** True when a service's variables reference a postgres service (its url, host, password...). */
function referencesDatabase(s: ServiceConfig, config: Config): boolean {
  return Object.values(s.env).some((v) =>
    parseTemplate(v).some((p) => p.kind === "ref" && config.services[p.service]?.type === "postgres"),
  );
}

/**
 * The CA a database client finds without code: libpq (psycopg, psql) and asyncpg read
 * PGSSLROOTCERT, Node reads NODE_EXTRA_CA_CERTS (pg treats sslmode=require as verify-full).
 * platform.yml's own values win.
 */
function databaseCaEnv(s: ServiceConfig): Record<string, TemplatePart[]> {
  const env: Record<string, TemplatePart[]> = {};
  for (const name of ["PGSSLROOTCERT", "NODE_EXTRA_CA_CERTS"]) if (!(name in s.env)) env[name] = literal(DATABASE_CA_FILE);
  return env;
}

/** `path.resolve` only joins strings: the plan stays pure. */
function buildSpec(s: ServiceConfig, ctx: PlanContext, sources: ReadonlyMap<string, SourceSnapshot>): BuildSpec | undefined {
  const buildArgs = { PLATFORM_PYTHON_IMAGE: ctx.images.python, PLATFORM_NODE_IMAGE: ctx.images.node };
  if (s.build) {
    const context = resolve(ctx.projectDir, s.build.source);
    return { kind: "dockerfile", context, dockerfilePath: resolve(context, s.build.dockerfile), buildArgs };
  }
  if (!s.source) return undefined;
  const snapshot = sources.get(s.name);
  if (!snapshot) throw new Error(`no source snapshot for service ${s.name}`);
  const { python, node, pythonVersions, nodeVersions, otelLayers } = ctx.images;
  const images = { python, node, pythonVersions, nodeVersions, otelLayers };
  try {
    // Zero-code OpenTelemetry: every recipe image carries the SDK and starts under it.
    // A migration may run from a stage of its own, with the tools the image leaves out.
    const opts = { instrument: true, ...(s.start ? { start: s.start } : {}), ...(s.migrate ? { migrate: true } : {}) };
    const recipe =
      s.type === "nextjs"
        ? buildNextjsRecipe(snapshot, images, opts)
        : s.type === "worker"
          ? buildWorkerRecipe(snapshot, images, opts)
          : buildFastapiRecipe(snapshot, images, opts);
    return { kind: "recipe", context: resolve(ctx.projectDir, s.source, recipe.context?.root ?? "."), recipe, buildArgs };
  } catch (e) {
    if (e instanceof RecipeError) throw new RecipeError(`services.${s.name} (source ${s.source}): ${e.message}`, e.hint);
    throw e;
  }
}

function healthSpec(s: ServiceConfig, database?: DatabaseSpec): HealthSpec {
  if (database) return { kind: "exec", command: ["pg_isready", "-h", "127.0.0.1", "-U", database.user, "-d", database.database] };
  if (s.type === "worker") return s.health?.command ? { kind: "exec", command: toStartCommand(s.health.command) } : WORKER_HEALTH;
  // No health path: any HTTP answer on $PORT is the readiness signal.
  return s.health?.http
    ? { kind: "http", path: s.health.http, port: HTTP_PORT }
    : { kind: "http", path: "/", port: HTTP_PORT, anyStatus: true };
}

function literal(text: string): TemplatePart[] {
  return [{ kind: "text", text }];
}

/**
 * The image of a postgres service's major: the default image, a version of the set-up's
 * catalogue (built on first need), the public image of that major, or a team's own image
 * (PLATFORM_POSTGRES_IMAGE: theirs to match the version).
 */
function postgresImage(images: PlanContext["images"], version: string | undefined): string {
  if (!version || version === DEFAULT_POSTGRES_VERSION) return images.postgres;
  const local = images.postgresVersions?.[version];
  if (local) return local;
  return images.postgres.startsWith("postgres:") ? `postgres:${version}` : images.postgres;
}

/** The default major's cluster is the volume's root; another major's is pg<major>/ in it (images/postgres). */
function clusterDirectory(version: string | undefined): string {
  return !version || version === DEFAULT_POSTGRES_VERSION ? PGDATA : `${PGDATA}/pg${version}`;
}

function envTemplates(
  s: ServiceConfig,
  ctx: PlanContext,
  sampleRatio: number,
  database: DatabaseSpec | undefined,
  trustsDatabaseCa: boolean,
): Record<string, TemplatePart[]> {
  if (database) {
    // The official image's interface; the password reference resolves to the stack's secret.
    return {
      POSTGRES_USER: literal(database.user),
      POSTGRES_DB: literal(database.database),
      POSTGRES_PASSWORD: [{ kind: "ref", service: s.name, property: "password" }],
      PGDATA: literal(clusterDirectory(database.version)),
    };
  }
  // The service's own OTEL_* names win (validate warns about them).
  const env: Record<string, TemplatePart[]> = {
    ...(s.type === "worker" ? {} : { PORT: literal(String(HTTP_PORT)) }),
    ...buildTelemetryEnv(ctx.project, ctx.env, s.name, sampleRatio),
    ...(trustsDatabaseCa ? databaseCaEnv(s) : {}),
  };
  for (const [k, v] of Object.entries(s.env)) env[k] = parseTemplate(v);
  return env;
}

function planService(
  s: ServiceConfig,
  config: Config,
  ctx: PlanContext,
  sources: ReadonlyMap<string, SourceSnapshot>,
  sampleRatio: number,
): PlannedService {
  const database: DatabaseSpec | undefined =
    s.type === "postgres"
      ? {
          user: DB_USER,
          database: DB_NAME,
          volumeName: stackName(ctx.project, ctx.env, s.name, "data"),
          retain: s.resources.retention !== "delete",
          dataPath: PGDATA,
          tls: { certFile: DATABASE_CERT_FILE, keyFile: DATABASE_KEY_FILE, owner: "postgres" },
          walArchive: { volumeName: stackName(ctx.project, ctx.env, s.name, "wal"), path: WAL_ARCHIVE_PATH },
          ...(s.resources.storage ? { storage: s.resources.storage } : {}),
          ...(s.version ? { version: s.version } : {}),
        }
      : undefined;
  const redis = s.type === "redis" ? redisSpec(s, ctx) : undefined;
  if (redis) return planRedis(s, ctx, redis);
  const trustsDatabaseCa = !database && referencesDatabase(s, config);
  return {
    name: s.name,
    type: s.type,
    public: s.public,
    dependsOn: s.depends_on,
    containerName: stackName(ctx.project, ctx.env, s.name),
    aliases: [s.name],
    hostPrefix: hostPrefix(ctx.project, s.name),
    domains: s.public ? [...(s.domains ?? [])] : [],
    port: database ? POSTGRES_PORT : s.type === "worker" ? 0 : HTTP_PORT,
    ...(s.replicas ? { replicas: s.replicas } : {}),
    ...(s.scale ? { scale: { ...s.scale } } : {}),
    build: buildSpec(s, ctx, sources),
    image: database ? postgresImage(ctx.images, s.version) : s.image,
    ...(s.image ? { prebuilt: true } : {}),
    ...(trustsDatabaseCa ? { databaseCaFile: DATABASE_CA_FILE } : {}),
    env: envTemplates(s, ctx, sampleRatio, database, trustsDatabaseCa),
    buildEnv: s.source || s.build ? Object.keys(s.env) : [],
    // A recipe bakes start into its image's CMD; a Dockerfile's CMD is replaced at run time.
    ...((s.build || s.image) && s.start ? { command: toStartCommand(s.start) } : {}),
    ...(database ? { command: postgresCommand(database.tls) } : {}),
    health: healthSpec(s, database),
    postStart: database ? SYNC_PASSWORD : undefined,
    healthTimeoutSeconds: DEFAULT_HEALTH_TIMEOUT_SECONDS,
    migrate: s.migrate
      ? { command: s.migrate.command, timeoutSeconds: s.migrate.timeoutSeconds, continueOnFailure: s.migrate.on_failure === "continue" }
      : undefined,
    cpus: s.resources.cpus,
    memoryBytes: s.resources.memoryBytes,
    pidsLimit: s.resources.pidsLimit,
    database,
    ...(s.cron?.length
      ? {
          cron: s.cron.map((j) => ({
            name: j.name,
            schedule: j.schedule,
            command: toStartCommand(j.command),
            timeoutSeconds: parseDuration(j.timeout) ?? 3600,
          })),
        }
      : {}),
    stopFirst: database !== undefined,
    stopGraceSeconds: database ? 60 : s.type === "worker" ? WORKER_STOP_GRACE_SECONDS : 20,
  };
}

/** A managed Redis: the platform's image, a volume for its AOF files, one server per volume. */
function planRedis(s: ServiceConfig, ctx: PlanContext, redis: RedisSpec): PlannedService {
  return {
    name: s.name,
    type: "redis",
    public: false,
    dependsOn: s.depends_on,
    containerName: stackName(ctx.project, ctx.env, s.name),
    aliases: [s.name],
    hostPrefix: hostPrefix(ctx.project, s.name),
    domains: [],
    port: REDIS_PORT,
    image: ctx.images.redis ?? PUBLIC_REDIS_IMAGE,
    env: redisEnv(s),
    ...(redis.passwordless ? { command: REDIS_NO_PASSWORD_COMMAND } : {}),
    buildEnv: [],
    health: REDIS_HEALTH,
    healthTimeoutSeconds: DEFAULT_HEALTH_TIMEOUT_SECONDS,
    cpus: s.resources.cpus,
    memoryBytes: s.resources.memoryBytes,
    pidsLimit: s.resources.pidsLimit,
    redis,
    stopFirst: true,
    // appendfsync everysec: a clean shutdown writes the last second too.
    stopGraceSeconds: 30,
  };
}

/**
 * Config -> Plan: pure. `sources` holds the scanned directories of `source` services
 * (scanSource does that I/O before the plan is built).
 */
export function buildPlan(config: Config, ctx: PlanContext, sources: ReadonlyMap<string, SourceSnapshot>): Plan {
  const byName = config.services;
  const order = orderByDependencies(Object.keys(byName), (n) => byName[n]?.depends_on ?? []);
  return {
    project: ctx.project,
    env: ctx.env,
    network: stackPrefix(ctx.project, ctx.env),
    labels: { "platform.project": ctx.project, "platform.env": ctx.env },
    appsDomain: ctx.appsDomain,
    httpsPort: ctx.httpsPort,
    ...(ctx.publicEdge ? { publicEdge: ctx.publicEdge } : {}),
    ...(ctx.frontDoor ? { frontDoor: ctx.frontDoor } : {}),
    images: ctx.images,
    services: order.map((n) => planService(byName[n] as ServiceConfig, config, ctx, sources, sampleRatioOf(config))),
    secrets: referencedSecrets(config),
  };
}
