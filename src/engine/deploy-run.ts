import { dirname } from "node:path";
import { refineWithRepository } from "./diagnose-repository.js";
import { isTcpEngine } from "../docker-client.js";
import { ExitCode, VisibleError } from "../errors.js";
import { imageRepository } from "../plan/naming.js";
import { inSyncWithDocker } from "../provider/drift.js";
import { edgeLogSince, pruneImages, removeOrphans } from "../runtime/docker.js";
import { type CertificateState, ensureCertificates } from "./certificates.js";
import type { Credentials } from "./credentials.js";
import { addressesOf, checkDns } from "./dns-check.js";
import { type DeployOptions, type DeployResult, deploy } from "./deploy.js";
import { type DeploymentRecord, imagesToKeep, listRecords } from "./history.js";
import { stackRuntime } from "./stack-ops.js";
import { resolveSettings } from "../plan/settings.js";
import { keptSettings } from "./stack-settings.js";

/**
 * A deployment (or a rollback) with what the engine needs from the runtime around it: the
 * Docker hooks of `deploy`, the pruning of old images after a success, and the truth about
 * each service after a failure. The CLI adds a terminal (Ctrl-C, a live view) and prints;
 * Studio can run the same.
 */
export type RunDeploymentOptions = Omit<DeployOptions, "removeOrphans" | "inSync"> & {
  /** The services of platform.yml, in its order: the ones a failure reports on. */
  readonly services: readonly string[];
  /** Custom domains of the stack's public services (each needs its certificate too). */
  readonly domains?: readonly string[];
};

export interface DeploymentRun extends DeployResult {
  /** Migrations that failed with `on_failure: continue`: the services rolled out anyway. */
  readonly warnings: string[];
  /** Each public host's certificate, made sure of before the URLs are given out. */
  readonly certificates: CertificateState[];
}

/** A failed or stopped deployment, said with where each service is now. */
export class DeploymentFailure extends VisibleError {
  readonly outcome: "failed" | "canceled";
  /** Per service: its phase in this deployment and what runs now (`api: failed; now running`). */
  readonly services: string[];

  constructor(message: string, opts: { exitCode: number; details: string[]; services: string[] }) {
    super(message, opts);
    this.outcome = opts.exitCode === ExitCode.interrupted ? "canceled" : "failed";
    this.services = opts.services;
  }
}

export async function runDeployment(o: RunDeploymentOptions): Promise<DeploymentRun> {
  const { services, domains: _domains, ...options } = o;
  let result: DeployResult;
  try {
    result = await deploy({ ...options, removeOrphans: (known) => removeOrphans(o.project, o.env, known), inSync: inSyncWithDocker });
  } catch (e) {
    throw await explainFailure(o, e);
  }
  // The last deployments' images stay for rollbacks (history.ts says which); a failed prune costs only disk.
  await pruneImages(imageRepository(o.project, ""), imagesToKeep(o.project)).catch(() => []);
  const certificates = await certificatesOf(result, o);
  return { ...result, warnings: migrationWarnings(result.record), certificates };
}

/**
 * The public hosts' certificates, obtained through the edge before the URLs are printed (on a
 * server over SSH, through a forward to its edge). A tcp:// engine's edge is out of reach from
 * here: its hosts get their certificates on their first visit. On Kubernetes with a front door,
 * through the cluster's ingress controller at the address it reported.
 */
async function certificatesOf(result: DeployResult, o: RunDeploymentOptions): Promise<CertificateState[]> {
  const first = Object.values(result.urls)[0];
  if (!first) return [];
  // Every public URL goes through the one edge (or front door), on one port.
  const port = Number(new URL(first).port || 443);
  const hosts = [...new Set([...result.hosts, ...(o.domains ?? [])])];
  if (result.frontDoor) {
    const door = result.frontDoor;
    const target = await addressesOf(door);
    // The cluster's words for where its ingress controller tells more.
    const runtime = await stackRuntime(o, o.creds).catch(() => undefined);
    const logHint = runtime?.words.frontDoorLog?.(o.frontDoor?.className);
    return certificatesAfterDns(hosts, {
      port,
      address: target[0] ?? door,
      target,
      where: `the cluster's front door (${door})`,
      ...(logHint ? { logHint } : {}),
    });
  }
  if (isTcpEngine()) return [];
  const given = o.publicEdge !== undefined ? { publicEdge: o.publicEdge } : {};
  const publicMode = resolveSettings(given, keptSettings(o.project, o.env)).publicEdge !== null;
  const since = Math.floor(Date.now() / 1000) - 600;
  const edgeLog = () => edgeLogSince(since);
  if (!publicMode) {
    // The local edge serves no custom domain: only the platform URLs get (local) certificates.
    if (o.domains?.length)
      o.onNote?.(`custom domains (${o.domains.join(", ")}) are served by the public edge only: deploy with PLATFORM_EDGE=public`);
    return ensureCertificates(result.hosts, { port, public: false, timeoutMs: 15_000, edgeLog });
  }
  return certificatesAfterDns(hosts, { port, where: "this server", edgeLog });
}

/**
 * A CA validates a name by its DNS: a name that points elsewhere gets no certificate, so it is
 * reported with the record to create instead of being waited for.
 */
async function certificatesAfterDns(
  hosts: readonly string[],
  o: { port: number; address?: string; target?: readonly string[]; where: string; edgeLog?: () => Promise<string>; logHint?: string },
): Promise<CertificateState[]> {
  const dns = await checkDns(hosts, process.env, o.target);
  const ready = dns.filter((d) => d.pointsHere).map((d) => d.host);
  const elsewhere = dns
    .filter((d) => !d.pointsHere)
    .map(
      (d): CertificateState => ({
        host: d.host,
        ok: false,
        error: `DNS: ${d.host} ${d.addresses.length ? `resolves to ${d.addresses.join(", ")}, not to ${o.where}` : `has ${d.error ?? "no address"}`}`,
        hint: `create the record ${d.record} (or a CNAME to a name that points there), then run platform deploy again; the other hosts are served`,
      }),
    );
  const issued = await ensureCertificates(ready, {
    port: o.port,
    ...(o.address ? { address: o.address } : {}),
    public: true,
    timeoutMs: 120_000,
    edgeLog: o.edgeLog ?? (async () => ""),
    ...(o.logHint ? { logHint: o.logHint } : {}),
  });
  return [...issued, ...elsewhere];
}

function migrationWarnings(record: DeploymentRecord): string[] {
  return Object.entries(record.migrations)
    .filter(([, m]) => m.failed)
    .map(([s, m]) => `${s}: migration failed (exit ${m.exitCode}); rolled out anyway (on_failure: continue); output in ${m.logFile}`);
}

/**
 * A deployment that failed or was stopped gets the verdict a person acts on: whether what ran
 * before still runs, and where each service is. Any other error (a lock, a passphrase) stays
 * as it is: nothing was rolled out.
 */
async function explainFailure(o: RunDeploymentOptions, e: unknown): Promise<unknown> {
  if (!(e instanceof VisibleError) || !(e.exitCode === ExitCode.interrupted || /^deployment dep_\S+ failed/.test(e.message))) return e;
  const where = await whereServicesAre(o, o.creds, o.services, listRecords(o.project, o.env)[0]?.services ?? {});
  const verdict =
    where.down.length === 0
      ? "what was running before keeps running"
      : `not running now: ${where.down.join(", ")}; fix the cause and run platform deploy again (platform status shows why)`;
  const stopped = e.exitCode === ExitCode.interrupted ? ["  the next platform deploy continues from here"] : [];
  return new DeploymentFailure(`${e.message}; ${verdict}`, {
    exitCode: e.exitCode,
    details: [
      ...refined(e.details, o.projectDir ?? dirname(o.configFile)),
      ...where.migrations,
      "where each service is:",
      ...where.lines,
      ...stopped,
    ],
    services: where.lines.map((l) => l.trim()),
  });
}

/** The failure's lines, their diagnoses made sharper with the repository (diagnose-repository.ts). */
const refined = (details: readonly string[], projectDir: string) => details.map((d) => refineWithRepository(d, projectDir));

export interface ServicePlaces {
  /** One line per service: `  api: failed; now running`. */
  readonly lines: string[];
  /** The services not running now. */
  readonly down: string[];
  /** The last lines of the failed migrations that the target does not report itself. */
  readonly migrations: string[];
}

/**
 * Where each service is after a failed or stopped deployment: its phase in the deployment and
 * what runs now, read from where the stack runs (an unreadable target reads as nothing running).
 */
export async function whereServicesAre(
  stack: { project: string; env: string },
  creds: Credentials,
  services: readonly string[],
  phases: Record<string, { phase: string }>,
): Promise<ServicePlaces> {
  const runtime = await stackRuntime(stack, creds).catch(() => undefined);
  const live = await (runtime?.liveStates() ?? Promise.resolve(new Map())).catch(() => new Map());
  // Docker's migration Job reports its output itself; a Kubernetes Job's is in its pod.
  const failed = Object.keys(phases).filter((n) => phases[n]?.phase === "failed");
  const migrations = (await runtime?.failureLogs(failed).catch(() => [])) ?? [];
  const lines: string[] = [];
  const down: string[] = [];
  for (const name of services) {
    const s = live.get(name);
    if (!s?.running) down.push(name);
    lines.push(`  ${name}: ${phases[name]?.phase ?? "untouched"}; now ${s ? (s.running ? "running" : s.detail) : "not deployed"}`);
  }
  return { lines, down, migrations };
}
