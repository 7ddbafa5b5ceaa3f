/**
 * The Studio HTTP API: every request and response shape that crosses the wire, and `StudioApi`,
 * a map from "METHOD /path/:param" to them. The server registers its routes by these keys
 * (typed-route.ts) and the UI's get/post take the same keys (studio-ui/src/api.ts), so a change
 * on either side that breaks the other fails tsc: `tsc -p tsconfig.json` for the server,
 * `tsc -p studio-ui/tsconfig.json` for the UI.
 *
 * Why a map of plain types and not Hono's typed client (hc): hc needs `typeof app`, which would
 * pull the whole server (node:fs, pg, dockerode, the engine) into the UI's type-check, and its
 * JSONParsed types are far harder to read in an error than these interfaces. The UI's fetch
 * helpers stay as they were, only typed by this map.
 *
 * Rules of this file, because the UI compiles it with lib DOM and no Node types:
 * - types only: the UI imports it with `import type`, so its bundle holds nothing of the server;
 * - it imports only modules without Node imports (telemetry/types.ts). Shapes the studio modules
 *   build are declared here and those modules import them (one declaration). The few fields of
 *   engine/ and runtime/ types the wire carries (DeploymentOutcome, GitInfo, ServiceDetails,
 *   LogLine) are restated here, because their modules import Node; the server assigns its
 *   values to these types, so tsc still fails when the two drift apart.
 */
import type { RouteStatsResult, TimeRange, Trace, TraceSummary } from "../telemetry/types.js";

export type {
  Percentiles,
  RouteStats,
  RouteStatsResult,
  SpanEvent,
  SpanKindName,
  SpanStatus,
  TimeRange,
  Trace,
  TraceSpan,
  TraceSummary,
} from "../telemetry/types.js";

/** Every error answer (4xx, 5xx). A failed SQL statement adds its SQLSTATE and position. */
export interface ApiError {
  error: string;
  code?: string;
  position?: string | null;
}

export interface SessionState {
  signedIn: boolean;
}
export interface TokenResponse {
  token: string;
}

// ---- Projects and environments -------------------------------------------------------------

/** The sidebar's dot for an environment (overview.ts: envState says which). */
export type EnvState = "running" | "deploying" | "degraded" | "stopped";

export interface ProjectState {
  name: string;
  envs: string[];
  states: Record<string, EnvState>;
}

/** engine/history.ts DeploymentRecord["outcome"]. */
export type DeploymentOutcome = "running" | "succeeded" | "failed" | "canceled" | "interrupted";
/** engine/history.ts DeploymentRecord["git"]. */
export interface GitInfo {
  commit: string;
  dirty: boolean;
}

/** runtime/inspect.ts ContainerDetails: what the engine says of a running container. */
export interface ServiceDetails {
  startedAt: string;
  restartCount: number;
  exitCode: number;
  oomKilled: boolean;
  /** Limits as the engine enforces them (null: unlimited). */
  limits: { cpus: number | null; memoryBytes: number | null; pids: number | null };
}

/** One copy of a service: its container, state and the engine's status line. */
export interface ReplicaView {
  container: string;
  state: string;
  status: string;
}

export interface ServiceView {
  name: string;
  type: string;
  state: string;
  status: string;
  health: "healthy" | "unhealthy" | "stopped" | "not deployed";
  image: string;
  url: string | null;
  details: ServiceDetails | null;
  lastPhase: string | null;
  /** A service of several copies (platform.yml replicas): each container, in replica order (absent for one copy). */
  replicas?: ReplicaView[];
  /** How many copies platform.yml asks for (with replicas). */
  wantReplicas?: number;
  /** A running redis service: memory in use and number of keys (absent for other types). */
  redis?: { usedMemoryBytes: number; keys: number } | null;
}

/** runtime/cron-runs.ts CronRun: one run (or skipped run) of a cron job. */
export interface CronRunView {
  job: string;
  scheduled?: string;
  started?: string;
  finished?: string;
  seconds?: number;
  exitCode?: number;
  outcome: "succeeded" | "failed" | "timed out" | "error" | "skipped";
  reason?: string;
  error?: string;
  output?: string;
}

/** The engine's HTTPS edge (runtime/docker.ts EdgeState, restated: that file imports Node). */
export interface EdgeView {
  mode: "local" | "public";
  running: boolean;
  appsDomain?: string;
  /** `127.0.0.1:443`, or `*:80` and `*:443`. */
  listens: string[];
  acmeCa?: string;
}

export interface EnvironmentView {
  project: string;
  env: string;
  services: ServiceView[];
  /** The edge public services go through; null when none runs yet. */
  edge: EdgeView | null;
  /** The last runs of the stack's cron jobs, newest first (absent: no scheduler runs). */
  cronRuns?: CronRunView[];
  /** Optional fields are absent from records that lack them (JSON drops undefined). */
  lastDeployment: { id: string; outcome: DeploymentOutcome; startedAt: string; finishedAt?: string; git?: GitInfo; by?: string } | null;
}

// ---- Deployments ---------------------------------------------------------------------------

export interface PhaseTiming {
  phase: string;
  at: string;
  ms: number | null;
}

export interface DeploymentView {
  id: string;
  kind: string;
  rollbackOf?: string;
  by: string | null;
  startedAt: string;
  finishedAt: string | null;
  durationMs: number | null;
  outcome: DeploymentOutcome;
  git: GitInfo | null;
  error: string | null;
  notes: string[];
  /** Nothing to do, proven without the engine: the deployment whose objects still run. */
  noChangeSince: string | null;
  services: { name: string; phase: string; phases: PhaseTiming[]; image: string | null }[];
  migrations: { service: string; output: string; exitCode: number | null; failed: boolean }[];
}

export interface Comparison {
  from: string;
  to: string;
  /** Line diff of platform.yml: unchanged runs are kept so the UI can fold them. */
  config: { kind: "same" | "added" | "removed"; text: string }[];
  images: { service: string; from: string | null; to: string | null }[];
  urls: { service: string; from: string | null; to: string | null }[];
  git: { from: GitInfo | null; to: GitInfo | null };
}

// ---- Logs and CPU/memory -------------------------------------------------------------------

/** runtime/log-stream.ts LogLine: the data of each `line` event of the logs stream. */
export interface LogLine {
  service: string;
  stream: "stdout" | "stderr";
  ts: string;
  line: string;
}

/** The logs route is server-sent events, not JSON: one `line` per log line, `end` when no stream is left. */
export interface LogEvents {
  line: LogLine;
  end: Record<string, never>;
}

export interface LogsQuery {
  /** Comma-separated service names. */
  services: string;
  /** Unix seconds; 0 for everything the engine kept. */
  since?: number;
  tail?: number;
  follow?: 0 | 1;
}

/** One CPU/memory sample of a service (its containers summed). */
export interface Sample {
  at: number;
  cpuPercent: number;
  memoryBytes: number;
  memoryLimitBytes: number | null;
}

export interface StatsResult extends TimeRange {
  series: Record<string, Sample[]>;
}

// ---- Database console ----------------------------------------------------------------------

/** Connection details through Studio's tunnel; the password is masked in `url`. */
export interface ConnectionInfo {
  host: string;
  port: number;
  user: string;
  database: string;
  url: string;
}
export interface DbInfo extends ConnectionInfo {
  writes: boolean;
}
/** A backup as the Database page lists it (what platform db backups lists, from this machine). */
export interface BackupInfo {
  id: string;
  kind: string;
  createdAt: string;
  bytes: number;
  deployment: string | null;
  verified: boolean;
  /** What the real restore that verified it held (since backups are proven so), else null. */
  restored: { tables: number; rows: number } | null;
  /** A base backup (pg_basebackup): where a point-in-time restore starts. */
  base: boolean;
}
/**
 * The recoverable window of point-in-time restores: from the oldest base backup (consistent) to
 * the newest archived WAL segment (`to` null: the database is not running, its archive was not read).
 */
export interface RecoveryWindowInfo {
  from: string;
  to: string | null;
  baseBackups: number;
  archive: { segments: number; bytes: number } | null;
  /** How much of the newest writes may not be archived yet (archive_timeout), in seconds. */
  archiveTimeoutSeconds: number;
}
/** The backups of a postgres service and its schedule (backup.schedule of the deployed platform.yml). */
export interface BackupsView {
  backups: BackupInfo[];
  schedule: { cron: string; keep: number | null; next: string | null } | null;
  /** null: no base backup yet (platform db backup makes one when the server archives its WAL). */
  window: RecoveryWindowInfo | null;
}
export interface TableInfo {
  schema: string;
  name: string;
  rows: number;
}

/** A statement's result as kept for paging: cells are text (bytes as \x hex) or null. */
export interface StoredResult {
  id: string;
  command: string;
  columns: string[];
  rows: (string | null)[][];
  rowCount: number;
  truncated: boolean;
  ms: number;
}
/** The first page of a result: `total` rows are kept, `rows` starts at `offset`. */
export interface QueryResult extends StoredResult {
  total: number;
  offset: number;
  writes: boolean;
}
export interface ResultPage {
  id: string;
  offset: number;
  rows: (string | null)[][];
  total: number;
}

// ---- Metrics -------------------------------------------------------------------------------

export interface RouteTracesQuery extends Partial<TimeRange> {
  service: string;
  route: string;
  method?: string;
  limit?: number;
  order?: "recent" | "slowest";
}

// ---- The map -------------------------------------------------------------------------------

/**
 * Every route, keyed as the server registers it. `response` is the 200 body (errors are
 * ApiError); `query` what the route reads from the query string (numbers are sent as text);
 * `body` the JSON a POST sends.
 */
export interface StudioApi {
  "POST /internal/token": { response: TokenResponse };
  /** 204 with no body when the x-studio-key header is right. */
  "GET /internal/ping": { response: null };
  "GET /api/session": { response: SessionState };
  "POST /api/logout": { body: Record<string, never>; response: SessionState };

  "GET /api/projects": { response: ProjectState[] };
  "GET /api/projects/:project/envs/:env": { response: EnvironmentView };
  "GET /api/projects/:project/envs/:env/deployments": { response: DeploymentView[] };
  "GET /api/projects/:project/envs/:env/compare": { query: { from: string; to: string }; response: Comparison };
  "GET /api/projects/:project/envs/:env/stats": { query: Partial<TimeRange>; response: StatsResult };
  "GET /api/projects/:project/envs/:env/logs": { query: LogsQuery; events: LogEvents };

  "GET /api/projects/:project/envs/:env/db/:service": { response: DbInfo };
  "GET /api/projects/:project/envs/:env/db/:service/password": { response: { password: string } };
  "GET /api/projects/:project/envs/:env/db/:service/tables": { response: TableInfo[] };
  "GET /api/projects/:project/envs/:env/db/:service/backups": { response: BackupsView };
  "POST /api/projects/:project/envs/:env/db/:service/writes": { body: { enabled: boolean }; response: { writes: boolean } };
  "POST /api/projects/:project/envs/:env/db/:service/query": { query: { limit?: number }; body: { sql: string }; response: QueryResult };
  "GET /api/db-results/:id": { query: { offset?: number; limit?: number }; response: ResultPage };

  "GET /api/projects/:project/envs/:env/metrics/routes": { query: Partial<TimeRange> & { buckets?: number }; response: RouteStatsResult };
  "GET /api/projects/:project/envs/:env/metrics/traces": { query: RouteTracesQuery; response: TraceSummary[] };
  "GET /api/traces/:id": { response: Trace };
}

export type ApiRoute = keyof StudioApi;
export type ApiMethod = "GET" | "POST";
/** The path of a route key: "GET /api/traces/:id" -> "/api/traces/:id". */
export type RoutePath<K extends ApiRoute> = K extends `${ApiMethod} ${infer P}` ? P : never;
/** Paths of the routes of `method` whose entry has `field`: "response" for JSON, "events" for event streams. */
export type PathWith<M extends ApiMethod, F extends "response" | "events"> = {
  [K in ApiRoute]: K extends `${M} ${infer P}` ? (StudioApi[K] extends Record<F, unknown> ? P : never) : never;
}[ApiRoute];

export type ApiResponse<K extends ApiRoute> = StudioApi[K] extends { response: infer R } ? R : never;
export type ApiQuery<K extends ApiRoute> = StudioApi[K] extends { query: infer Q extends object } ? Q : Record<string, never>;
export type ApiBody<K extends ApiRoute> = StudioApi[K] extends { body: infer B } ? B : never;

type ParamNames<P extends string> = P extends `${string}:${infer N}/${infer Rest}`
  ? N | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer N}`
    ? N
    : never;
/** The path parameters of a route: "/api/traces/:id" -> { id: string }. */
export type PathParams<P extends string> = { [N in ParamNames<P>]: string };
