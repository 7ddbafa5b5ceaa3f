/**
 * The public shapes of the config stage. Other stages (plan, cli, studio) depend on these
 * exact names, so change them only together with their users.
 */

/** One problem found in platform.yml, always with a position a person can jump to. */
export interface Diagnostic {
  /** The file as the user named it (relative when they gave a relative path). */
  file: string;
  /** 1-based line. */
  line: number;
  /** 1-based column. */
  col: number;
  /** Config path in dotted/bracket form, e.g. `services.api.depends_on[0]`; "" for the whole file. */
  path: string;
  /** Stable machine code, e.g. "unknown-service"; tests and --json consumers key on it. */
  code: string;
  message: string;
  /** What to do about it, when there is something better to say than the message. */
  hint?: string;
  severity: "error" | "warning";
}

export interface ValidationResult {
  ok: boolean;
  /** Present only when ok: the normalized config with every default applied. */
  config?: Config;
  errors: Diagnostic[];
  warnings: Diagnostic[];
}

export type ServiceType = "fastapi" | "nextjs" | "postgres" | "redis" | "worker";
export type PresetName = "small" | "medium" | "large";
export type Retention = "permanent" | "delete";
export type OnFailure = "abort" | "continue";

export interface ResourcesConfig {
  preset: PresetName;
  cpus: number;
  memoryBytes: number;
  /** Most processes (and threads) at once. */
  pidsLimit: number;
  /** postgres and redis only, as written (e.g. "10Gi"). */
  storage?: string;
  storageBytes?: number;
  /** storage was written in platform.yml (not the default): what a target that cannot enforce it mentions. */
  storageWritten?: boolean;
  retention?: Retention;
}

/** platform.yml `scale:` with its defaults filled in. */
export interface ScaleConfig {
  min: number;
  max: number;
  /** Target CPU, percent of the service's cpus. */
  cpu: number;
}

export interface ServiceConfig {
  name: string;
  type: ServiceType;
  public: boolean;
  /** Custom domains of a public service (besides its platform URL), as written. */
  domains: string[];
  /** How many copies run (platform.yml replicas), when more than one. */
  replicas?: number;
  /** platform.yml scale: copies between min and max, kept near cpu percent of the service's CPU (replicas is then min, when more than one). */
  scale?: ScaleConfig;
  /** Values are templates: parse them with parseTemplate. */
  env: Record<string, string>;
  depends_on: string[];
  resources: ResourcesConfig;
  /** Relative to the project directory, as written. */
  source?: string;
  build?: { source: string; dockerfile: string };
  /** A prebuilt image (a registry reference or a local tag), instead of source or build. */
  image?: string;
  /** platform.yml's start: a string for sh -c, or a program and its arguments. */
  start?: string | string[];
  /** http on fastapi and nextjs services; command on a worker (validation keeps them apart). */
  health?: { http?: string; command?: string | string[] };
  /** postgres only: when backups are made on their own (cron, UTC) and how many are kept. */
  backup?: { schedule?: string; keep?: number };
  /** postgres only: the major version ("15", "17", "18"); absent means the default. */
  version?: string;
  /** redis only: "none" starts it without a password (clients that know only host and port). */
  auth?: "password" | "none";
  /** Periodic jobs run with this service's image (fastapi, nextjs, worker). */
  cron?: { name: string; schedule: string; command: string | string[]; timeout: string }[];
  migrate?: { command: string[]; on_failure: OnFailure; timeoutSeconds: number };
}

export interface Config {
  version: "1.0";
  name: string;
  description?: string;
  /** Key order is file order. */
  services: Record<string, ServiceConfig>;
  /** Absent in hand-made configs (tests): the defaults apply. */
  telemetry?: TelemetryConfig;
  /** Where the team is told what went wrong (notify:); absent: nowhere. */
  notify?: NotifyChannel[];
}

/** A notify: channel, as written (its ${secrets.X} references unresolved). */
export interface NotifyChannel {
  webhook?: string;
  secret?: string;
  email?: { to: string[]; from?: string; smtp: string; user?: string; password?: string };
  /** Undefined: every event. */
  events?: string[];
}

export interface TelemetryConfig {
  /** 0..1: the share of new traces recorded (parent-based trace-id ratio sampling). */
  sampleRatio: number;
}

export type TemplatePart = { kind: "text"; text: string } | { kind: "ref"; service: string; property: string };

/**
 * The few file-system questions validation asks, injectable so validateConfig stays pure in
 * tests. Paths given are absolute. Each answers undefined (never throws) when the path is missing.
 */
export interface ConfigFs {
  stat(path: string): { isDirectory: boolean; isFile: boolean } | undefined;
  realpath(path: string): string | undefined;
  /** Optional: names in a directory, used only for did-you-mean on a missing path. */
  readdir?(path: string): string[] | undefined;
}

export interface ValidateOptions {
  /** Shown in every diagnostic. */
  file: string;
  /** Directory that source and build paths are relative to, and must stay inside. */
  projectDir: string;
  fs?: ConfigFs;
  /** The environment's secret names, when known: a `${secrets.NAME}` that is not set is a warning. */
  secrets?: { readonly names: ReadonlySet<string>; readonly env: string };
}
