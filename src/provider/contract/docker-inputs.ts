/**
 * The provider's contract for the Docker resources (platform:docker:*): the inputs the program
 * gives each resource type. Targets build them; the provider's handlers read them.
 */

/** How a container proves it is ready: an HTTP path on its port, or a command run inside it. */
export type HealthCheck =
  | { kind: "http"; path: string; port: number; anyStatus?: boolean }
  | { kind: "exec"; command: string[] }
  | { kind: "running"; settleSeconds?: number };

/**
 * Files a container gets before it starts (a database's TLS key and certificate, the CA the
 * apps trust), written through the Engine API into the container's own file system: never an
 * image layer, never a file on the host that outlives the container.
 */
export interface ContainerFile {
  /** Absolute path inside the container. */
  path: string;
  content: string;
  /** Permission bits, e.g. 0o600 for a private key. */
  mode: number;
  /** A user name of the image (its /etc/passwd): the file's owner and group. Default root. */
  owner?: string;
}

/** Inputs of platform:docker:Image. `hash` identifies the build inputs; `tag` embeds it. */
export interface ImageInputs {
  tag: string;
  context: string;
  /** The Dockerfile's text (generated recipes, or the user's file read by the program). */
  dockerfile: string;
  dockerignore?: string;
  buildArgs?: Record<string, string>;
  hash: string;
  /**
   * The service's variables for the build (a secret input: it stays encrypted in the state).
   * They reach the build as the BuildKit secret `platform-env`, and as build arguments only
   * for names the Dockerfile declares with ARG.
   */
  buildEnv?: Record<string, string>;
  /** A hash of buildEnv (in `hash` too), passed as PLATFORM_BUILD_ENV_HASH so that steps that use the values re-run. */
  buildEnvHash?: string;
  /** Extra CA certificates for package managers, passed as the BuildKit secret `ca` (never a layer). */
  caFile?: string;
  logDir: string;
  label: string;
  /** Run as it is (a rollback): never built; an error when it is gone. */
  pinned?: boolean;
  /** The Dockerfile stage to build (BuildKit --target: a migration's image); unset: the last. */
  target?: string;
}

/** Inputs of platform:docker:PulledImage: platform.yml `image:`, or a rollback's pinned id. */
export interface PulledImageInputs {
  /** As written in platform.yml: ghcr.io/org/app:1.4, or a local tag. */
  tag: string;
  label: string;
  /** A rollback: run exactly this image id; an error when it is gone (never pulled again: a tag may have moved). */
  pinnedId?: string;
}

/** Inputs of platform:docker:Container (see targets/docker/resources.ts for the documented SDK side). */
export interface ContainerInputs {
  name: string;
  image: string;
  env?: Record<string, string>;
  command?: string[];
  networks: { name: string; aliases?: string[] }[];
  volumes?: { name: string; target: string }[];
  /** Host paths mounted as they are (the cron scheduler's Engine socket): HOST:CONTAINER[:ro]. */
  binds?: string[];
  /** Written into the container before it starts (a database's TLS key: a secret input). */
  files?: ContainerFile[];
  labels?: Record<string, string>;
  cpus?: number;
  memoryBytes?: number;
  pidsLimit?: number;
  health?: HealthCheck;
  healthTimeoutSeconds?: number;
  /** One at a time on its volumes (a database): the create stops the previous container first. */
  stopFirst?: boolean;
  stopGraceSeconds?: number;
  /** A command run inside the container once healthy; it must exit 0. */
  postStart?: string[];
  /**
   * The ids of the database containers this service's variables point at. Not given to Docker:
   * compared by diff, so that a new database server (a major upgrade, a killed one started
   * again, a renewed certificate) replaces this container too, new before old, once the server
   * is healthy. A connection pool does not see that the server of an idle connection has gone
   * (psycopg's, SQLAlchemy's without pre-ping): the first query on each one failed after the
   * deploy said it was complete.
   */
  databases?: string[];
  /**
   * The deployment that creates the container, added to OTEL_RESOURCE_ATTRIBUTES as
   * deployment.id. Not compared by diff: a deploy that changes nothing else replaces nothing,
   * so a container's deployment.id is the one of the deployment that last changed it.
   */
  deploymentId?: string;
}

/** Inputs of platform:docker:Job: a one-shot container (a migration) that must exit 0. */
export interface JobInputs {
  name: string;
  image: string;
  command: string[];
  env?: Record<string, string>;
  networks: { name: string }[];
  /** Written into the container before it starts (the CA its service trusts). */
  files?: ContainerFile[];
  timeoutSeconds: number;
  labels?: Record<string, string>;
  logDir: string;
  /** A failure only warns instead of failing the deployment (on_failure: continue). */
  continueOnFailure?: boolean;
  /** The service's own limits: a migration runs its code, so it gets no more than the service. */
  cpus?: number;
  memoryBytes?: number;
  pidsLimit?: number;
}

/** The inputs of an edge (platform:docker:EdgeAttachment, edge.ts). */
export interface EdgeInputs {
  network: string;
  image: string;
  httpsPort: number;
  appsDomain: string;
  /** Set for the public edge (every interface, ACME); absent for the local one (127.0.0.1, its own CA). */
  mode?: "public";
  /** The public edge's host port for plain HTTP. */
  httpPort?: number;
  acmeCa?: string;
  acmeEmail?: string;
  /** PEM text of a CA that signs the ACME directory's TLS. */
  acmeCaRoot?: string;
}

/**
 * platform:docker:TelemetryAttachment: makes sure the one shared OTLP receiver runs, and
 * joins it to an application's network, where services reach it as platform-telemetry:4318.
 * Like the edge, it belongs to the engine, not to a stack: a destroy only detaches it, so
 * other applications keep sending, and its store (a directory of the host) outlives it.
 */
export interface TelemetryInputs {
  network: string;
  /** The Node base image the receiver image is built on. */
  baseImage: string;
  /** The receiver image's identity (its files and base): a change rebuilds and replaces it. */
  hash: string;
  /** The host directory of the store (machine-local: not compared by diff). */
  storeDir: string;
}
