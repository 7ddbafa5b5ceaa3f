import type { Config } from "../config/types.js";
import type { FrontDoor, Plan } from "../plan/types.js";
import type { CronRun } from "./cron-runs.js";
import type { ContainerDetails } from "./inspect.js";
import type { DbHost, ExecResult } from "./pg-exec.js";
import type { Usage } from "./stats.js";

/**
 * The runtime seam: everything the CLI, Studio, the engine and the data commands read from or do
 * to a deployed stack where it runs, whichever target that is. One implementation per target
 * (docker-target.ts, kubernetes-target.ts), chosen once per stack by runtimeOf (runtime-of.ts):
 * no caller asks which target it has. A third target (several Docker servers, say) is a third
 * implementation and a case in runtimeOf; the callers do not change.
 */

/** Whether a service runs now and, when not, why (an exit code, an OOM kill, a rollout's state). */
export interface LiveState {
  running: boolean;
  detail: string;
}

/** One copy of a service: a container on Docker, a pod on Kubernetes. */
export interface Copy {
  readonly container: string;
  readonly state: string;
  readonly status: string;
}

/** A service as `platform status` shows it: its state, its image and its copies. */
export interface ServiceLive extends LiveState {
  readonly image: string;
  readonly copies: readonly Copy[];
}

/** One copy of a service as Studio's services page shows it. */
export interface Instance {
  readonly service: string;
  /** The container's or the pod's name. */
  readonly name: string;
  /** `running` when it serves (or runs, for a worker). */
  readonly state: string;
  readonly status: string;
  readonly image: string;
  /** Its order among its service's copies. */
  readonly replica: number;
  details(): Promise<ContainerDetails | undefined>;
  redis(): Promise<{ usedMemoryBytes: number; keys: number } | undefined>;
}

/** One line of a service's log, with its time (RFC 3339) and stream. */
export interface LogLine {
  service: string;
  stream: "stdout" | "stderr";
  ts: string;
  line: string;
}

export interface LogRequest {
  project: string;
  env: string;
  services: string[];
  sinceSeconds: number;
  tail: number;
  follow: boolean;
}

export interface LogOptions {
  follow?: boolean;
  /** From this time on (Unix seconds). */
  sinceSeconds?: number;
  /** The last lines only. */
  tail?: number;
}

/** Where a stack's telemetry store is copied from; absent for the store of this machine's own engine. */
export interface TelemetryCopy {
  /** Names the copy's directory: one per source. */
  readonly key: string;
  copy(dir: string): Promise<boolean>;
}

/** A value as given (a flag, else its environment variable), with the name to quote in a message. */
export interface Given {
  readonly value?: string;
  readonly source: string;
}

/** What a deploy asks of the way in (--front-door, --ingress-class, --cluster-issuer, and whether an HTTPS port was given). */
export interface FrontDoorRequest {
  readonly mode: Given;
  readonly ingressClass: Given;
  readonly clusterIssuer: Given;
  readonly httpsPortGiven: boolean;
}

/** What the deploy flow hands a target before the engine starts. */
export interface DeployPreparation {
  readonly plan: Plan;
  readonly config: Config;
  readonly frontDoor: FrontDoorRequest;
  progress(line: string): void;
  /** Builds the base images of the plan that are missing (`local`: on this machine's engine, not the stack's); returns the plan's base images. */
  ensureBaseImages(local: boolean): Promise<readonly string[]>;
}

/** What a target decided before the deploy: its way in, the URLs' port when it chose one, and its notes. */
export interface PreparedDeploy {
  /** null: the edge on this machine. */
  readonly frontDoor: FrontDoor | null;
  readonly httpsPort?: number;
  readonly notes: readonly string[];
}

/**
 * A database's data where it runs, as a point-in-time recovery swaps it (data/pitr-restore.ts):
 * the server stopped, its data moved aside and a base backup unpacked in its place, the server
 * started to recover, and the old data put back if it does not promote.
 */
export interface DatabaseRecovery {
  /** What stopping the database is here, as the restore's warning says it. */
  readonly stopping: string;
  /** Where the old data is kept while the server recovers (and stays, if putting it back fails). */
  readonly oldDataPlace: string;
  /** The cluster's data directory (its PGDATA), where the old data is moved aside. */
  readonly clusterDir: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Moves the data aside and unpacks the base backup (a tar on `input`) to recover up to `targetTime`. */
  swapIn(targetTime: string, input: AsyncIterable<Buffer>): Promise<ExecResult>;
  /** Puts the moved-aside data back (nothing to do when nothing was moved). */
  putBack(): Promise<ExecResult>;
  /** True once `promoted()` says so while the server stays in the same run; false if it restarted or the time is up. */
  untilPromoted(promoted: () => Promise<boolean>, timeoutMs: number): Promise<boolean>;
  /** The server's last log lines: why a recovery stopped. */
  logTail(): Promise<string>;
}

/** What differs between targets in what the platform says: each runtime's own words. */
export interface RuntimeWords {
  /** Where a certificate that the cluster's ingress controller (of this class) did not serve is told in more detail; undefined without one. */
  frontDoorLog?(ingressClass: string | undefined): string;
  /** How a status shows a service of several copies: by counting them (Docker), or the workload's own count (Kubernetes). */
  readonly countsCopies: boolean;
  /** A note on a storage size the target does not enforce; undefined when it does. */
  unenforcedStorage?(service: string, storage: string): string;
  /** A database whose `version:` went up is upgraded around the deploy here (dump and restore); else by the target's own means. */
  readonly upgradesDatabases: boolean;
  /** What a service's copies are called here ("containers", "pods"), as a restore's report names them. */
  readonly copies: string;
  /** Cron jobs run in a scheduler of the stack's own (a progress row of its own). */
  readonly cronScheduler: boolean;
}

export interface TargetRuntime {
  readonly target: "docker" | "kubernetes";
  readonly project: string;
  readonly env: string;
  readonly words: RuntimeWords;
  /**
   * Before a deploy to this target: the checks that refuse it before anything is made, the way
   * in (a cluster's ingress, or this machine's edge), hand-overs, and the base images it needs.
   */
  prepareDeploy(p: DeployPreparation): Promise<PreparedDeploy>;
  /** Fails with what to do when the target does not answer (Docker: no engine). */
  reachable(): Promise<void>;
  /** Per service, whether it runs now and, when not, why: what a failed deploy reports. */
  liveStates(): Promise<Map<string, LiveState>>;
  /** Per service, its state, image and copies: what `platform status` shows. */
  services(): Promise<Map<string, ServiceLive>>;
  /** The copies of every service, for Studio (an unreadable target reads as none). */
  instances(): Promise<Instance[]>;
  /** The services with a running copy. */
  runningServices(): Promise<Set<string>>;
  /**
   * The last lines that explain failed services which the deployment's own error does not carry
   * (a Kubernetes migration Job's or a crashed pod's; Docker's migrations report their own).
   */
  failureLogs(failed: readonly string[]): Promise<string[]>;
  /** `platform logs SERVICE`, to this process's stdout and stderr. */
  printLogs(service: string, o: LogOptions): Promise<void>;
  /** Studio's logs of several services, each line with its service and time; returns a function that stops them. */
  streamLogs(q: Omit<LogRequest, "project" | "env">, onLine: (l: LogLine) => void, onEnd: () => void): Promise<() => void>;
  /** `platform run` (a fresh copy of the service's image) or `exec` (in a running copy), attached to this terminal. */
  oneOff(kind: "run" | "exec", service: string, command: readonly string[], tty: boolean): Promise<{ code: number; image: string }>;
  /** The last runs of the stack's cron jobs, oldest first; undefined when its scheduler does not run. */
  cronRuns(n: number): Promise<CronRun[] | undefined>;
  /** Where a postgres service runs now (a container, or a ready pod), for backups, restores and the console. */
  databaseHost(service: string): Promise<DbHost | undefined>;
  /** How a point-in-time recovery swaps a running database's data; a string says why it cannot (no WAL archive). */
  databaseRecovery(service: string): Promise<DatabaseRecovery | string>;
  /** The data a destroy kept (volumes, claims). */
  keptData(): Promise<string[]>;
  /** Deletes the data a destroy kept; returns what it deleted. */
  deleteData(): Promise<string[]>;
  /** CPU and memory of each running copy now, by service (a copy of two during a rollout reads as two). */
  usage(): Promise<{ service: string; usage: Usage }[]>;
  /** Where Studio copies the stack's telemetry store from. */
  readonly telemetry: TelemetryCopy | undefined;
}
