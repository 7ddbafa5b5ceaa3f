import { homedir } from "node:os";
import { join } from "node:path";

/**
 * The platform home (PLATFORM_HOME, else ~/.platform) and every path under it: the one place
 * that knows its layout. The CLI, the engine, the Pulumi program, the provider plugin and
 * Studio all read paths from here, so `pulumi up` and `platform deploy` see the same.
 */
export function platformHome(): string {
  return process.env.PLATFORM_HOME || join(homedir(), ".platform");
}

const under = (...parts: string[]) => join(platformHome(), ...parts);

export const homePaths = {
  /** Login: the backend URL and where its passphrase comes from. */
  credentials: () => under("credentials.json"),
  /** The default self-managed state backend (a file:// backend). */
  stateDir: () => under("state"),
  /** One Pulumi project per application: its workspace and deployment history. */
  projectsDir: () => under("projects"),
  workspaceDir: (project: string) => under("projects", project),
  /** An environment's expiry (deploy --expires), per project: `<env>.json`. */
  expiryDir: (project: string) => under("projects", project, "expiry"),
  /**
   * What the last deploy that ran the engine applied, per stack (`<env>.json`): its program's
   * fingerprint and the checkpoint it left. A deploy that finds both unchanged skips the engine.
   */
  appliedFile: (project: string, env: string) => under("projects", project, "applied", `${env}.json`),
  /** Linked projects: a directory name -> project/env. */
  linksDir: () => under("links"),
  legacyLinksFile: () => under("links.json"),
  /** The engine's per-version records and runner directories. */
  engineDir: (...parts: string[]) => under("engine", ...parts),
  /** Deploy logs (build and migration output), per stack. */
  logDir: (project: string, env: string) => under("logs", project, env),
  /** The edge mode chosen for one engine: its edge's name and the engine's address (DOCKER_HOST). */
  edgeRecord: (edgeName: string, engine: string) => under("edges", `${edgeName}@${engine.replace(/[^A-Za-z0-9._-]+/g, "_")}.json`),
  /** Locks that serialise work on a shared container (the edge, the receiver). */
  lockFile: (name: string) => under(name),
  keysDir: () => under("keys"),
  /** Database backups (encrypted), per stack and postgres service; PLATFORM_BACKUP_DIR moves them. */
  backupsDir: (project: string, env: string, service?: string) =>
    join(process.env.PLATFORM_BACKUP_DIR || under("backups"), project, env, ...(service ? [service] : [])),
  /** What the set-up built: base images, OpenTelemetry layers, toolchain. */
  imagesFile: () => under("images.json"),
  otelLayersFile: () => under("otel-layers.json"),
  toolchainFile: () => under("toolchain.json"),
  /**
   * The Kubernetes test cluster's files, and what its set-up built (kubernetes.json). They take a
   * home: the cluster's tests lay one out under a scratch home.
   */
  clusterDir: (home = platformHome()) => join(home, "cluster"),
  clusterToolchainFile: (home = platformHome()) => join(home, "kubernetes.json"),
  /**
   * The telemetry store's directory: the OTLP receiver writes `telemetry.sqlite` here
   * (bind-mounted into its container), and Studio opens it read-only. PLATFORM_TELEMETRY_DIR moves it.
   */
  telemetryDir: () => process.env.PLATFORM_TELEMETRY_DIR || under("telemetry"),
  /** Studio's pid/port/key file, log and CPU/memory samples (PLATFORM_STUDIO_DIR moves it, for tests). */
  studioDir: () => process.env.PLATFORM_STUDIO_DIR || under("studio"),
} as const;
