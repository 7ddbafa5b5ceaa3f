import * as pulumi from "@pulumi/pulumi";
import { DB_NAME, DB_USER } from "../../plan/build-plan.js";
import { OTLP_ENDPOINT_PROPERTY, TELEMETRY_REF } from "../../plan/otel-env.js";
import type { Plan, PlannedService } from "../../plan/types.js";
import { receiverContext, TELEMETRY_ENDPOINT } from "../../provider/contract/receiver-image.js";
import { createImage, migrationImage, createPulledImage, type ImageBuildOptions } from "../shared/build-image.js";
import { createDatabaseTls } from "../shared/database-tls.js";
import { addServiceOutputs, type TargetOutputs } from "../shared/outputs.js";
import { createPublicRoutes, edgeAliases, publicHostLabels } from "../shared/public-routes.js";
import { exportsTelemetry, resolveEnv, type ReferenceValues } from "../shared/references.js";
import { Network } from "../shared/resources.js";
import { buildServiceValues } from "../shared/service-values.js";
import { REPLICA_LABEL } from "../../plan/types.js";
import { VOLUME_ROLE_LABEL, WAL_ARCHIVE_ROLE, withWalArchive } from "../../plan/wal-archive.js";
import { databaseTlsFiles } from "./database-files.js";
import { Container, Job, TelemetryAttachment, Volume } from "./resources.js";
import { createScheduler, type ScheduledService } from "./scheduler.js";

export interface DockerTargetOptions extends ImageBuildOptions {
  /** The environment's secrets that the plan references (`${secrets.NAME}`), as Pulumi secrets. */
  readonly secrets?: Readonly<Record<string, pulumi.Output<string>>>;
  /** This deployment's id: a new container's deployment.id resource attribute. */
  readonly deploymentId?: string;
  /** The host directory of the telemetry store; without it no receiver runs (and OTEL_EXPORTER_OTLP_ENDPOINT is left out). */
  readonly telemetryDir?: string;
}

/** The shared OTLP receiver joined to this stack's network, when a service sends to it. */
function createTelemetry(plan: Plan, network: Network, opts: DockerTargetOptions): TelemetryAttachment | undefined {
  if (!opts.telemetryDir || !plan.services.some(exportsTelemetry)) return undefined;
  const { hash } = receiverContext(plan.images.node);
  return new TelemetryAttachment(
    "telemetry",
    { network: plan.network, baseImage: plan.images.node, hash, storeDir: opts.telemetryDir },
    { dependsOn: [network] },
  );
}

/**
 * The containers of the databases whose values a service's variables reference (a database's
 * own variables name itself: not counted), when they are made before it (depends_on): see
 * ContainerInputs.databases.
 */
function databasesOf(s: PlannedService, plan: Plan, containers: ReadonlyMap<string, Container>): pulumi.Output<string>[] {
  const names = new Set(Object.values(s.env).flatMap((parts) => parts.flatMap((p) => (p.kind === "ref" ? [p.service] : []))));
  return plan.services
    .filter((d) => d.database && d.name !== s.name && names.has(d.name))
    .flatMap((d) => {
      const c = containers.get(d.name);
      return c ? [c.id] : [];
    });
}

/** The data volume and, for a database, its WAL archive, each by its real name. */
function mountsOf(data: Volume | undefined, dataPath: string | undefined, wal: Volume | undefined, walPath: string | undefined) {
  const one = (v: Volume | undefined, target: string | undefined) =>
    v && target ? [v.volumeName.apply((name) => ({ name, target }))] : [];
  return pulumi.all([...one(data, dataPath), ...one(wal, walPath)]);
}

/**
 * Turns a plan into the Docker target's resources, in dependency order: a database is
 * healthy before its dependents migrate; a migration succeeds before its service rolls out;
 * a service is healthy before its dependents start.
 */
export function createDockerTarget(plan: Plan, opts: DockerTargetOptions): TargetOutputs {
  const labels = plan.labels;
  const network = new Network("network", { name: plan.network, labels });
  const routes = createPublicRoutes(plan, network);
  const words = routes?.words;
  const edge = routes?.edge;

  const values = buildServiceValues(plan, (s) => s.name, words?.words, opts.secrets);
  const telemetry = createTelemetry(plan, network, opts);
  if (telemetry) values.set(TELEMETRY_REF, { [OTLP_ENDPOINT_PROPERTY]: TELEMETRY_ENDPOINT });
  const refs: ReferenceValues = values;
  // A database's certificate names its network aliases: `${db.url}` uses the service name.
  const tls = createDatabaseTls(plan, (s) => [s.name, ...s.aliases]);

  const containers = new Map<string, Container>();
  const scheduled: ScheduledService[] = [];
  const outputs: TargetOutputs = {};
  for (const s of plan.services) {
    const deps = s.dependsOn.map((d) => containers.get(d)).filter((c): c is Container => c !== undefined);
    const env = resolveEnv(s.env, refs);
    // The tag carries the inputs hash: same tag, same image (and `platform status` shows it).
    const image = s.build ? createImage(s, plan, env, opts).tag : s.prebuilt ? createPulledImage(s, opts) : (s.image as string);
    const serviceLabels = { ...labels, "platform.service": s.name };
    const files = databaseTlsFiles(s, tls);
    // A rollback runs no migration: the older code's migrations may not know the schema's
    // newest revision, and migrations are not reversed anyway.
    const migrate =
      s.migrate && !opts.pinnedImages
        ? new Job(
            `${s.name}-migrate`,
            {
              name: `${s.containerName}-migrate`,
              image: migrationImage(s, plan, env, opts) ?? image,
              command: s.migrate.command,
              env,
              networks: [{ name: plan.network }],
              ...(files ? { files } : {}),
              timeoutSeconds: s.migrate.timeoutSeconds,
              labels: serviceLabels,
              logDir: opts.logDir,
              continueOnFailure: s.migrate.continueOnFailure,
              cpus: s.cpus,
              memoryBytes: s.memoryBytes,
              pidsLimit: s.pidsLimit,
            },
            { dependsOn: [network, ...deps] },
          )
        : undefined;
    const data = s.database ?? s.redis;
    const volume = data ? new Volume(`${s.name}-data`, { name: data.volumeName, retain: data.retain, labels: serviceLabels }) : undefined;
    const dataPath = data?.dataPath;
    const archive = s.database?.walArchive;
    // The WAL archive outlives containers like the data (retention), told apart by its role label.
    const walVolume = archive
      ? new Volume(`${s.name}-wal`, {
          name: archive.volumeName,
          retain: data?.retain ?? true,
          labels: { ...serviceLabels, [VOLUME_ROLE_LABEL]: WAL_ARCHIVE_ROLE },
        })
      : undefined;
    const command = s.command && archive ? withWalArchive(s.command) : s.command;
    const aliases = s.public && words ? edgeAliases(s, words.words).apply((a) => [...s.aliases, ...a]) : [...s.aliases];
    const containerLabels = s.public && words ? publicHostLabels(serviceLabels, s, words.words) : serviceLabels;
    const databases = databasesOf(s, plan, containers);
    const container = replicated(
      s,
      (name, containerName, replica, after) =>
        new Container(
          name,
          {
            name: containerName,
            image,
            env,
            ...(command ? { command: [...command] } : {}),
            networks: pulumi.output(aliases).apply((a) => [{ name: plan.network, aliases: a }]),
            // The volume's real name: an adopted volume keeps its data whatever name the plan wants.
            volumes: mountsOf(volume, dataPath, walVolume, archive?.path),
            ...(files ? { files } : {}),
            labels:
              replica === 1 ? containerLabels : pulumi.output(containerLabels).apply((l) => ({ ...l, [REPLICA_LABEL]: String(replica) })),
            cpus: s.cpus,
            memoryBytes: s.memoryBytes,
            pidsLimit: s.pidsLimit,
            health: s.health,
            healthTimeoutSeconds: s.healthTimeoutSeconds,
            stopFirst: s.stopFirst,
            stopGraceSeconds: s.stopGraceSeconds,
            ...(s.postStart ? { postStart: [...s.postStart] } : {}),
            ...(databases.length ? { databases: pulumi.all(databases) } : {}),
            ...(opts.deploymentId ? { deploymentId: opts.deploymentId } : {}),
          },
          {
            dependsOn: after
              ? [after]
              : [
                  network,
                  ...deps,
                  ...(migrate ? [migrate] : []),
                  ...(volume ? [volume] : []),
                  ...(walVolume ? [walVolume] : []),
                  ...(s.public && edge ? [edge] : []),
                  ...(telemetry && exportsTelemetry(s) ? [telemetry] : []),
                ],
          },
        ),
    );
    containers.set(s.name, container);
    if (s.cron?.length) scheduled.push({ service: s, image, env, container });
    addServiceOutputs(outputs, s, values.get(s.name)!);
  }
  createScheduler(plan, scheduled, network);
  return outputs;
}

/**
 * A service's containers: one, or `replicas` of them (the resource `<svc>`, then `<svc>.2` ...,
 * containers `<base>-2-<suffix>` ...), each created after the one before it is healthy, so that a
 * deploy starts the new copies one at a time; the replaced ones stop at the end of the deploy,
 * when all new ones serve. All carry the service's aliases: the edge and other services reach
 * any of them. Returns the last: what depends on the service waits for every copy.
 */
/**
 * A service's copies (platform.yml replicas): resources `api`, `api.2`, ...; containers
 * `<base>-<suffix>`, `<base>-<n>-<suffix>`, each after the one before (rolled one at a time). The
 * n-th (n >= 2) carries REPLICA_LABEL; the first carries none, as a service of one copy.
 */
function replicated(
  s: PlannedService,
  make: (name: string, containerName: string, replica: number, after: Container | undefined) => Container,
): Container {
  let last = make(s.name, s.containerName, 1, undefined);
  for (let r = 2; r <= (s.replicas ?? 1); r++) last = make(`${s.name}.${r}`, `${s.containerName}-${r}`, r, last);
  return last;
}

export { DB_NAME, DB_USER, type TargetOutputs };
