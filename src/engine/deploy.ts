import { createHash } from "node:crypto";
import { hostname, userInfo } from "node:os";
import { createWriteStream, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { EngineEvent, Stack } from "@pulumi/pulumi/automation/index.js";
import { ExitCode, VisibleError } from "../errors.js";
import { parseStackSettings, resolveSettings, toStackConfig } from "../plan/settings.js";
import type { FrontDoor, PublicEdge } from "../plan/types.js";
import { homePaths } from "../home/layout.js";
import type { PlannedBuild } from "../targets/shared/planned-build.js";
import { PLATFORM_VERSION } from "../version.js";
import { type Checkpoint, type CheckpointResource, checkpointResources, readCheckpoint, rootOutputs } from "./checkpoint.js";
import type { Credentials } from "./credentials.js";
import { applyProgress, type DeploymentRecord, gitInfo, newDeploymentId, saveConfigCopy, saveRecord } from "./history.js";
import { acquireStackLock } from "./lock.js";
import { isPassphraseError, wrongPassphrase } from "./passphrase.js";
import { type ProgressEvent, toError, toImage, toLogFile, toProgress } from "./progress.js";
import { type Applied, checkpointDigest, forgetApplied, readApplied, sameEvents, unchangedSince, writeApplied } from "./no-op.js";
import { startPrebuilds } from "./prebuild.js";
import { programFingerprint } from "./program-fingerprint.js";
import { fileBackendDir, knownContainers, recoverStack, repairFileBackend } from "./recover.js";
import { currentStackSettings, readStackConfig, type StackConfigValue, stackSettingsFile, writeStackSettings } from "./stack-settings.js";
import { frontDoorOf, publicHosts, publicUrls } from "./stack-outputs.js";
import { upWithoutFollowUps } from "./up.js";
import { attachProvider, openStack, pickSetupDockerCli, workspaceProgram } from "./workspace.js";

export interface DeployOptions {
  readonly configFile: string;
  readonly project: string;
  readonly env: string;
  readonly creds: Credentials;
  readonly appsDomain?: string;
  readonly httpsPort?: number;
  /** The public edge's settings, null for the local edge; unset keeps the stack's. */
  readonly publicEdge?: PublicEdge | null;
  /** Kubernetes: the cluster's ingress, null for the edge on this machine; unset keeps the stack's. */
  readonly frontDoor?: FrontDoor | null;
  /** Where the stack runs: `docker` (the default) or `kubernetes`; kept as a stack setting. */
  readonly target?: string;
  /** The Kubernetes target's kubeconfig (a path); kept as a stack setting. */
  readonly kubeconfig?: string;
  /** The Kubernetes target's image registry (`HOST[:PORT][/PATH]`); kept as a stack setting. */
  readonly registry?: string;
  readonly onProgress?: (e: ProgressEvent) => void;
  /** Lines worth a person's attention before the phases: recovery from an interrupted run. */
  readonly onNote?: (line: string) => void;
  /** Removes containers of the stack that its state does not know (after an interruption). */
  readonly removeOrphans?: (known: ReadonlySet<string>) => Promise<string[]>;
  /**
   * True when a refresh would change nothing in the state (every object the state knows is
   * there, as it was). The deploy then skips the refresh, which is about a third of a no-op
   * deploy; without it (or on doubt) it refreshes.
   */
  readonly inSync?: (resources: readonly CheckpointResource[]) => Promise<boolean>;
  /** Stops the deployment gracefully: steps in flight finish, nothing new starts. */
  readonly signal?: AbortSignal;
  /** Service names in plan order: the order of the URL lines. */
  readonly order?: readonly string[];
  /** Per built service, what its build is given now (targets/shared/planned-build.ts): a code change's build starts early only for these. */
  readonly builds?: ReadonlyMap<string, PlannedBuild>;
  /** Where platform.yml's paths start, when the file is kept elsewhere (a rollback's copy). */
  readonly projectDir?: string;
  /** Redeploy an earlier deployment's images and configuration, without building. */
  readonly rollback?: { readonly of: string; readonly images: Record<string, { tag: string; hash: string }> };
}

/** The deploy options that become stack settings (writeStackConfig): what deploy, preview and a session pass on. */
export type StackSettingKey =
  | "configFile"
  | "projectDir"
  | "appsDomain"
  | "httpsPort"
  | "publicEdge"
  | "frontDoor"
  | "target"
  | "kubeconfig"
  | "registry";

export interface DeployResult {
  readonly record: DeploymentRecord;
  /** Public URL per public service, in plan order. */
  readonly urls: Record<string, string>;
  /** Every public host name the edge serves for the stack: the URLs', and the platform's own beside custom domains. */
  readonly hosts: string[];
  /** Kubernetes with a front door: the address its ingress controller serves them at. */
  readonly frontDoor?: string;
}

/**
 * Stack settings `platform deploy` writes; `pulumi up` on the stack reads the same. The edge's
 * domain and port, the target and its kubeconfig stay as they were unless given. A rollback
 * pins the images to redeploy. Written straight into the stack's settings file
 * (stack-settings.ts); through the CLI only when that file cannot be used.
 */
export async function writeStackConfig(
  stack: Stack,
  o: Pick<DeployOptions, "project" | "env" | "rollback" | StackSettingKey>,
  deploymentId: string,
): Promise<void> {
  const current = await currentStackSettings(stack, o.project, o.env);
  // What this deploy was given over what the stack keeps, then the defaults (plan/settings.ts).
  const given = {
    ...(o.appsDomain !== undefined ? { appsDomain: o.appsDomain } : {}),
    ...(o.httpsPort !== undefined ? { httpsPort: o.httpsPort } : {}),
    ...(o.publicEdge !== undefined ? { publicEdge: o.publicEdge } : {}),
    ...(o.frontDoor !== undefined ? { frontDoor: o.frontDoor } : {}),
    ...(o.target !== undefined ? { target: o.target } : {}),
    ...(o.kubeconfig !== undefined ? { kubeconfig: o.kubeconfig } : {}),
    ...(o.registry !== undefined ? { registry: o.registry } : {}),
  };
  const values: Record<string, string> = {
    "platform:configFile": o.configFile,
    "platform:projectDir": o.projectDir ?? "",
    ...toStackConfig(resolveSettings(given, parseStackSettings(current))),
    "platform:deploymentId": deploymentId,
    "platform:images": o.rollback ? JSON.stringify(o.rollback.images) : "",
  };
  if (!writeStackSettings(stackSettingsFile(o.project, o.env), values))
    await stack.setAllConfig(Object.fromEntries(Object.entries(values).map(([k, value]) => [k, { value }])));
}

function tailOf(file: string, bytes = 8000): string {
  try {
    return readFileSync(file, "utf8").slice(-bytes);
  } catch {
    return "";
  }
}

async function newRecord(o: DeployOptions, id: string): Promise<DeploymentRecord> {
  const text = readFileSync(o.configFile, "utf8");
  const record: DeploymentRecord = {
    id,
    project: o.project,
    env: o.env,
    startedAt: new Date().toISOString(),
    outcome: "running",
    kind: o.rollback ? "rollback" : "deploy",
    ...(o.rollback ? { rollbackOf: o.rollback.of } : {}),
    git: await gitInfo(o.projectDir ?? dirname(o.configFile)),
    by: `${userInfo().username}@${hostname()}`,
    configHash: createHash("sha256").update(text).digest("hex").slice(0, 16),
    cliVersion: PLATFORM_VERSION,
    services: {},
    migrations: {},
    urls: {},
    images: {},
    notes: [],
  };
  record.configCopy = saveConfigCopy(record, text);
  return record;
}

/**
 * Runs one deployment: the stack's lock, recovery from an interrupted run, stack settings,
 * `pulumi up` through the Automation API, and a deployment record whatever the outcome.
 * A failure leaves what ran before in place (the engine does not replace a service whose
 * migration or health check failed) and throws a VisibleError.
 */
export async function deploy(o: DeployOptions): Promise<DeployResult> {
  const id = newDeploymentId();
  const lock = acquireStackLock(o.project, o.env, o.rollback ? "rollback" : "deploy", id);
  let prebuilding: Promise<number> | undefined;
  try {
    const repaired = repairFileBackend(o.creds, o.project, o.env);
    const stack = await openStack(o.project, o.env, o.creds);
    const record = await newRecord(o, id);
    const note = (line: string) => {
      record.notes!.push(line);
      o.onNote?.(line);
    };
    repaired.forEach(note);
    const recovery = await recoverStack(stack, o.creds, o.project, o.env, lock.recoveredFrom);
    if (recovery) {
      recovery.notes.forEach(note);
      const removed = (await o.removeOrphans?.(knownContainers(recovery.stateIds))) ?? [];
      if (removed.length)
        note(
          `removed ${removed.length} container${removed.length === 1 ? "" : "s"} the state did not know (left by the interrupted run): ${removed.join(", ")}`,
        );
    }
    saveRecord(record);
    await writeStackConfig(stack, o, id);
    // The last checkpoint (none while a recovery is pending) and the stack's settings, read once.
    const checkpoint = recovery ? undefined : readCheckpoint(o.creds, o.project, o.env);
    const config = dockerOnFileBackend(o);
    if (checkpoint && config && o.builds) prebuilding = prebuild(checkpoint, o.creds.passphrase, o.builds);
    // Cheap checks first, without the engine: whether the state still matches Docker, and
    // whether the program asks for what the last engine run applied (no-op.ts).
    const resources = o.inSync ? checkpoint?.resources : undefined;
    const [fingerprint, inSync] = await Promise.all([fingerprintOf(o, config), resources ? o.inSync!(resources) : false]);
    const applied = readApplied(o.project, o.env);
    if (inSync && unchangedSince(applied, fingerprint, resources)) return skipEngine(o, record, resources!, applied);
    const result = await runUp(stack, o, record, !inSync);
    const after = fingerprint && checkpointResources(o.creds, o.project, o.env);
    if (after) writeApplied(o.project, o.env, { fingerprint: fingerprint!, checkpoint: checkpointDigest(after), deploymentId: id });
    else forgetApplied(o.project, o.env);
    return result;
  } finally {
    // No early build goes on after the deploy (one the engine did not take is left to finish).
    if (((await prebuilding) ?? 0) > 0) await (await import("../provider/docker/image.js")).settlePrebuilds();
    lock.release();
  }
}

/** A Docker stack on a file backend: where the engine can be skipped and builds can start early. */
function dockerOnFileBackend(o: DeployOptions): Record<string, StackConfigValue> | undefined {
  if (o.rollback || !fileBackendDir(o.creds)) return undefined;
  const config = readStackConfig(stackSettingsFile(o.project, o.env));
  return config && (config["platform:target"]?.value || "docker") === "docker" ? config : undefined;
}

/** A code change's builds, started before the engine (prebuild.ts), for the provider served from this process. */
async function prebuild(checkpoint: Checkpoint, passphrase: string, builds: ReadonlyMap<string, PlannedBuild>): Promise<number> {
  if (process.env.PLATFORM_PROVIDER_PROCESS === "1") return 0;
  pickSetupDockerCli();
  return startPrebuilds(checkpoint, passphrase, builds).catch(() => 0);
}

/**
 * The program's fingerprint for the settings just written (its deployment id left out: it is
 * new every time): only where a no-op can be proven, a Docker stack on a file backend, and
 * not for a rollback. PLATFORM_ENGINE_SKIP=0 always runs the engine.
 */
async function fingerprintOf(o: DeployOptions, config: Record<string, StackConfigValue> | undefined): Promise<string | undefined> {
  if (!config || !o.inSync || process.env.PLATFORM_ENGINE_SKIP === "0") return undefined;
  const settings = { ...config, "platform:deploymentId": { value: "", secret: false } };
  return programFingerprint(o.project, o.env, settings).catch(() => undefined);
}

/**
 * A deployment that has nothing to do (no-op.ts): recorded as the engine's no-op would be,
 * every service unchanged, the URLs from the state. The stack's settings keep the id of the
 * deployment whose objects run, so `pulumi preview` still finds nothing to do.
 */
function skipEngine(o: DeployOptions, record: DeploymentRecord, resources: readonly CheckpointResource[], applied: Applied): DeployResult {
  const onEvent = eventRecorder(record, o, []);
  const { events, same } = sameEvents(resources);
  events.forEach(onEvent);
  writeStackSettings(stackSettingsFile(o.project, o.env), { "platform:deploymentId": applied.deploymentId });
  const outputs = rootOutputs(resources);
  record.urls = publicUrls(outputs, o.order);
  record.changes = { same };
  record.noChangeSince = applied.deploymentId;
  record.notes!.push(`nothing to do: every object is as ${applied.deploymentId} left it, so the engine did not run`);
  record.outcome = "succeeded";
  record.finishedAt = new Date().toISOString();
  saveRecord(record);
  return { record, urls: record.urls, hosts: publicHosts(outputs), ...frontDoorOf(outputs) };
}

/** What the engine's events add to the record and the live view: phases, errors, migration logs, images. */
function eventRecorder(record: DeploymentRecord, o: DeployOptions, errors: { service?: string; message: string }[]) {
  return (e: EngineEvent) => {
    const p = toProgress(e);
    if (p) {
      applyProgress(record, p);
      o.onProgress?.(p);
    }
    const err = toError(e);
    // An error of the (inline) program reaches the engine twice, as its log and as its run's result.
    if (err && !errors.some((x) => x.message === err.message && x.service === err.service)) errors.push(err);
    const lf = toLogFile(e);
    if (lf)
      record.migrations[lf.service] = { logFile: lf.logFile, output: tailOf(lf.logFile), exitCode: lf.exitCode, failed: lf.exitCode !== 0 };
    const img = toImage(e);
    if (img) record.images![img.service] = { tag: img.tag, hash: img.hash };
  };
}

async function runUp(stack: Stack, o: DeployOptions, record: DeploymentRecord, refresh: boolean): Promise<DeployResult> {
  const dir = homePaths.logDir(o.project, o.env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const engineLog = join(dir, `${record.id}.log`);
  const log = createWriteStream(engineLog, { mode: 0o600 });
  const errors: { service?: string; message: string }[] = [];
  let detach: (() => void) | undefined;
  const onEvent = eventRecorder(record, o, errors);
  try {
    // refresh: read the engine's truth first, so a container or edge removed by hand comes
    // back; skipped only when the drift read found that it would change nothing.
    const program = await workspaceProgram(o.project);
    detach = await attachProvider(stack);
    const res = await upWithoutFollowUps(stack, {
      program,
      onEvent,
      onOutput: (s) => log.write(s),
      color: "never",
      refresh,
      signal: o.signal,
    });
    record.urls = publicUrls(res.outputs, o.order);
    record.changes = res.summary.resourceChanges as Record<string, number>;
    record.outcome = "succeeded";
    return { record, urls: record.urls, hosts: publicHosts(res.outputs), ...frontDoorOf(res.outputs) };
  } catch (e) {
    throw failure(record, e as Error, errors, engineLog, o.signal?.aborted === true);
  } finally {
    detach?.();
    record.finishedAt = new Date().toISOString();
    saveRecord(record);
    log.end();
  }
}

/** What went wrong, in the provider's own words, with the log to read; the record says the same. */
function failure(
  record: DeploymentRecord,
  e: Error,
  errors: { service?: string; message: string }[],
  engineLog: string,
  canceled: boolean,
): VisibleError {
  record.outcome = canceled ? "canceled" : "failed";
  record.error = errors.map((x) => x.message).join("\n") || e.message;
  // A failed migration's output belongs in the record (its log file is <service>-migrate-<time>.log).
  for (const m of record.error.matchAll(/full log: (\S+-migrate-\d+\.log)/g)) {
    const svc = errors.find((x) => x.message.includes(m[1] as string))?.service;
    if (svc) record.migrations[svc] = { logFile: m[1] as string, output: tailOf(m[1] as string), failed: true };
  }
  if (canceled) {
    return new VisibleError(`deployment ${record.id} was stopped (Ctrl-C): the steps in flight finished, nothing new started`, {
      exitCode: ExitCode.interrupted,
      details: [`engine log: ${engineLog}`],
    });
  }
  if (isPassphraseError(record.error)) return wrongPassphrase(`${record.project} (${record.env})`);
  if (/currently locked/i.test(record.error)) {
    return new VisibleError(
      `${record.project} (${record.env}) is locked by another Pulumi operation (someone may be running pulumi up on it); nothing was changed`,
      { exitCode: ExitCode.failed, details: [`engine log: ${engineLog}`] },
    );
  }
  const failed = Object.entries(record.services)
    .filter(([, s]) => s.phase === "failed")
    .map(([n]) => n);
  return new VisibleError(`deployment ${record.id} failed${failed.length ? ` (${failed.join(", ")})` : ""}`, {
    exitCode: ExitCode.failed,
    details: [...cleanErrors(errors.length ? errors.map((x) => x.message) : [e.message]), `engine log: ${engineLog}`],
  });
}

/** Engine diagnostics carry a Pulumi preamble; keep the provider's own words. */
function cleanErrors(messages: string[]): string[] {
  return messages
    .map((m) => m.replace(/^error: /, "").trim())
    .filter((m) => m && !/^update failed$/i.test(m))
    .map((m) =>
      m
        .split("\n")
        .map((l) => `  ${l}`)
        .join("\n"),
    );
}
