import type { TemplatePart } from "../config/index.js";
import type { Recipe } from "./recipes/index.js";

/** The container label that numbers a service's n-th copy (n >= 2, platform.yml replicas) on Docker; the first has none. */
export const REPLICA_LABEL = "platform.replica";

/** Where and how a plan is deployed: the stack's identity and the machine's settings. */
export interface PlanContext {
  /** Pulumi project name: the application's project name. */
  readonly project: string;
  /** Environment, one Pulumi stack each (`preview` first). */
  readonly env: string;
  readonly appsDomain: string;
  readonly httpsPort: number;
  /** Set when the edge serves the internet (public mode); unset: the local edge on 127.0.0.1. */
  readonly publicEdge?: PublicEdge;
  /** Kubernetes: the cluster's own ingress controller serves public services; unset: the edge on this machine. */
  readonly frontDoor?: FrontDoor;
  /** Absolute directory holding platform.yml: source paths are relative to it. */
  readonly projectDir: string;
  readonly images: BaseImageSet;
}

/** The public edge: every interface, certificates from an ACME directory. */
export interface PublicEdge {
  /** The host's port for plain HTTP (redirects, ACME HTTP-01 challenges). */
  readonly httpPort: number;
  readonly acme: {
    /** The ACME directory URL (Let's Encrypt's by default). */
    readonly ca: string;
    readonly email: string;
    /** A PEM bundle that signs the directory's TLS, when the system's CAs do not (staging, company CA, tests). */
    readonly caRoot?: string;
  };
}

/**
 * The cluster's own front door on Kubernetes: one Ingress per public service, served by the
 * cluster's ingress controller at its address. Certificates: cert-manager's, through a
 * ClusterIssuer, when one is named; else the controller's own (its ACME, or its default).
 */
export interface FrontDoor {
  readonly kind: "ingress";
  /** The IngressClass; unset: the cluster's default class. */
  readonly className?: string;
  /** A cert-manager ClusterIssuer: each host's certificate goes into a Secret of its own. */
  readonly clusterIssuer?: string;
}

export interface BaseImageSet {
  readonly python: string;
  readonly node: string;
  readonly postgres: string;
  readonly caddy: string;
  /** Redis 7 for `type: redis` (absent in hand-made sets: REDIS_IMAGE applies). */
  readonly redis?: string;
  /**
   * Other Python minors and Node majors, version -> image: the set-up's catalogue of local images
   * that are built on first need (images.json "python-versions", "node-versions").
   */
  readonly pythonVersions?: Readonly<Record<string, string>>;
  readonly nodeVersions?: Readonly<Record<string, string>>;
  /** PostgreSQL majors beside the default one, version -> image (images.json "postgres-versions"). */
  readonly postgresVersions?: Readonly<Record<string, string>>;
  /** The OpenTelemetry layer images the set-up built ($PLATFORM_HOME/otel-layers.json). */
  readonly otelLayers?: readonly string[];
}

export type HealthSpec =
  /** `anyStatus`: any HTTP answer counts (no health path declared: the server is up when it answers). */
  | { readonly kind: "http"; readonly path: string; readonly port: number; readonly anyStatus?: boolean }
  | { readonly kind: "exec"; readonly command: string[] }
  /** `settleSeconds`: it must keep running that long (no exit, no restart) to count as started: a worker's check. */
  | { readonly kind: "running"; readonly settleSeconds?: number };

export type BuildSpec =
  | { readonly kind: "recipe"; readonly context: string; readonly recipe: Recipe; readonly buildArgs: Record<string, string> }
  | { readonly kind: "dockerfile"; readonly context: string; readonly dockerfilePath: string; readonly buildArgs: Record<string, string> };

export interface DatabaseSpec {
  readonly user: string;
  readonly database: string;
  readonly volumeName: string;
  readonly retain: boolean;
  readonly dataPath: string;
  /** The server's TLS certificate and key files in its container (ssl=on; plain connections still accepted). */
  readonly tls: { readonly certFile: string; readonly keyFile: string; readonly owner: string };
  /** The size platform.yml asks for (`storage:`): enforced where the target can (a Kubernetes volume). */
  readonly storage?: string;
  /** platform.yml's `version:` (absent: the default major of the image set). */
  readonly version?: string;
  /** Its WAL archive (plan/wal-archive.ts): a volume kept like the data; the Docker target archives into it. */
  readonly walArchive: { readonly volumeName: string; readonly path: string };
}

export interface CronJobSpec {
  readonly name: string;
  /** 5 cron fields, or 6 with seconds first; UTC. */
  readonly schedule: string;
  readonly command: readonly string[];
  readonly timeoutSeconds: number;
}

/** A managed Redis: AOF persistence in its data volume, the stack's generated password. */
export interface RedisSpec {
  readonly volumeName: string;
  readonly retain: boolean;
  readonly dataPath: string;
  readonly storage?: string;
  /** platform.yml auth: none: no password; its url is redis://<host>:6379/0. */
  readonly passwordless?: true;
}

/** One service, everything decided: the program only turns this into resources. */
export interface PlannedService {
  readonly name: string;
  readonly type: "fastapi" | "nextjs" | "postgres" | "redis" | "worker";
  readonly public: boolean;
  /** Services this one waits for (healthy) before it migrates and starts. */
  readonly dependsOn: readonly string[];
  /** Base name of its containers (a short suffix is added per container). */
  readonly containerName: string;
  /** Network aliases on the app network (the target adds the edge alias of a public service). */
  readonly aliases: readonly string[];
  /** First part of its public host name; the stack's two words follow. */
  readonly hostPrefix: string;
  /** Custom domains of a public service; the first is its external URL. */
  readonly domains: readonly string[];
  /** 0 for a worker: it listens on nothing and has no URL. */
  readonly port: number;
  /** Copies that run (platform.yml replicas), when more than one: each a container (Docker) or a pod (Kubernetes). */
  readonly replicas?: number;
  /**
   * platform.yml scale: copies between min and max, kept near cpu percent of `cpus` (Kubernetes:
   * a HorizontalPodAutoscaler owns the count). `replicas` is then min, when more than one.
   */
  readonly scale?: { readonly min: number; readonly max: number; readonly cpu: number };
  readonly build?: BuildSpec;
  /** Prebuilt image (postgres, redis, or platform.yml image:). */
  readonly image?: string;
  /** platform.yml image: pulled when missing and pinned by its id (not the platform's own image). */
  readonly prebuilt?: boolean;
  /**
   * Where the stack's database CA goes in its containers (PGSSLROOTCERT and NODE_EXTRA_CA_CERTS
   * name it): set for a service that references a database, so `sslmode=verify-full` works.
   */
  readonly databaseCaFile?: string;
  /** Variables: literal values, and templates whose references resolve at deploy time. */
  readonly env: Readonly<Record<string, readonly TemplatePart[]>>;
  /**
   * Names of the variables its build sees too (platform.yml's env of a built service): code
   * that checks them at import must build, and NEXT_PUBLIC_* values are inlined by next build.
   */
  readonly buildEnv: readonly string[];
  /** The container's command instead of the image's CMD (platform.yml start on a `build` service). */
  readonly command?: readonly string[];
  readonly health: HealthSpec;
  /**
   * Run inside the container once it is healthy; a non-zero exit fails the create. For a
   * database: make the stack's generated password the server's, also on a retained volume
   * whose data outlived an earlier stack (destroy, then deploy again).
   */
  readonly postStart?: readonly string[];
  readonly healthTimeoutSeconds: number;
  readonly migrate?: { readonly command: string[]; readonly timeoutSeconds: number; readonly continueOnFailure: boolean };
  readonly cpus: number;
  readonly memoryBytes: number;
  /** Most processes (and threads) at once, for the service and its migration. */
  readonly pidsLimit: number;
  readonly database?: DatabaseSpec;
  readonly redis?: RedisSpec;
  /** Periodic jobs: a fresh container of this service's image per run (platform.yml cron). */
  readonly cron?: readonly CronJobSpec[];
  /** Replace by stopping first (one server per data directory). */
  readonly stopFirst: boolean;
  readonly stopGraceSeconds: number;
}

export interface Plan {
  readonly project: string;
  readonly env: string;
  readonly network: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly appsDomain: string;
  readonly httpsPort: number;
  /** Set in public mode: the edge listens on every interface and gets certificates from ACME. */
  readonly publicEdge?: PublicEdge;
  /** Kubernetes only: public services come in through the cluster's ingress controller. */
  readonly frontDoor?: FrontDoor;
  readonly images: BaseImageSet;
  /** In dependency order: every service after the services it depends on. */
  readonly services: readonly PlannedService[];
  /** Names of the environment's secrets that `${secrets.NAME}` references use. */
  readonly secrets: readonly string[];
}
