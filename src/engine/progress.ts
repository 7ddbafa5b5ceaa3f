import type { EngineEvent } from "@pulumi/pulumi/automation/index.js";

/**
 * The small progress model the CLI renders and deployment records keep: per service, the
 * phases it went through. Engine events name resources; the resource naming of the targets
 * (`<svc>-image`, `<svc>-migrate`, `<svc>`) says which service and which step they are.
 */
export type Phase =
  | "Installing"
  | "built"
  | "migrating"
  | "migrated"
  | "migration failed"
  | "starting"
  | "healthy"
  | "unchanged"
  | "failed";

export interface ProgressEvent {
  readonly service: string;
  readonly phase: Phase;
  /** ms since epoch */
  readonly at: number;
  readonly message?: string;
}

const STEP_OF_TYPE: Record<string, { suffix: string; start: Phase; done: Phase }> = {
  "platform:docker:Image": { suffix: "-image", start: "Installing", done: "built" },
  // A prebuilt image (platform.yml image:): pulled when missing, then ready like a built one.
  "platform:docker:PulledImage": { suffix: "-image", start: "Installing", done: "built" },
  "platform:docker:Job": { suffix: "-migrate", start: "migrating", done: "migrated" },
  "platform:docker:Container": { suffix: "", start: "starting", done: "healthy" },
  // The Kubernetes target: the same steps, as a Job, a Deployment (rolled out: ready) or a StatefulSet.
  "kubernetes:batch/v1:Job": { suffix: "-migrate", start: "migrating", done: "migrated" },
  // A migration that may fail (on_failure: continue): its Job is not awaited by Pulumi, its outcome is.
  "platform:kubernetes:MigrationOutcome": { suffix: "-migrate-outcome", start: "migrating", done: "migrated" },
  "kubernetes:apps/v1:Deployment": { suffix: "", start: "starting", done: "healthy" },
  "kubernetes:apps/v1:StatefulSet": { suffix: "", start: "starting", done: "healthy" },
  // A worker's Deployment is not awaited by Pulumi: its WorkerRollout says when it is healthy.
  "platform:kubernetes:WorkerRollout": { suffix: "-rollout", start: "starting", done: "healthy" },
};

/**
 * A worker's Deployment, which Pulumi does not await (its WorkerRollout does), or a migration
 * Job that may fail (its MigrationOutcome awaits it): their outputs say nothing of how they went.
 */
function isUnawaited(type: string, m: { new?: { inputs?: Record<string, unknown> } }): boolean {
  const annotations = (m.new?.inputs?.metadata as { annotations?: Record<string, string> } | undefined)?.annotations;
  return type.startsWith("kubernetes:") && annotations?.["pulumi.com/skipAwait"] === "true";
}

/** The resources that run a migration to its end and report its exit code and log file. */
const MIGRATION_RUNS = new Set(["platform:docker:Job", "platform:kubernetes:MigrationOutcome"]);

/** The resource types that run a service (one per service): an unchanged one says the service is unchanged. */
const WORKLOAD_TYPES = new Set(["platform:docker:Container", "kubernetes:apps/v1:Deployment", "kubernetes:apps/v1:StatefulSet"]);

// "replace" is only the engine's marker between creating the replacement and deleting the
// old one: counting it too printed starting/healthy twice for a replaced service.
const WORK_OPS = new Set(["create", "create-replacement", "update"]);

/** urn:pulumi:<stack>::<project>::<type>::<name> */
export function parseUrn(urn: string): { type: string; name: string } {
  const parts = urn.split("::");
  const type = (parts[2] ?? "").split("$").pop() ?? "";
  return { type, name: parts.slice(3).join("::") };
}

function serviceStep(urn: string) {
  const { type, name } = parseUrn(urn);
  // The platform's own objects in a stack (the cluster's telemetry receiver, "@telemetry-…") are no service.
  if (name.startsWith("@")) return undefined;
  const step = STEP_OF_TYPE[type];
  if (!step || !name.endsWith(step.suffix)) return undefined;
  return { step, type, service: serviceOfResource(name, step.suffix) };
}

/** The service a resource belongs to: its name less the step's suffix, and less `.<n>` of a service's further copies (replicas). */
export function serviceOfResource(name: string, suffix: string): string {
  return name.slice(0, name.length - suffix.length).replace(/\.\d+$/, "");
}

/** A rollback's image is run as it is: nothing is installed or built, so no phase says so. */
function isPinnedImage(m: { new?: { inputs?: Record<string, unknown> } }): boolean {
  return m.new?.inputs?.pinned === true;
}

/** Maps one engine event to progress; most events say nothing about a service. */
export function toProgress(e: EngineEvent): ProgressEvent | undefined {
  const at = e.timestamp * 1000;
  const pre = e.resourcePreEvent?.metadata;
  if (pre) {
    const s = serviceStep(pre.urn);
    if (!s || isPinnedImage(pre)) return undefined;
    // The Deployment said "starting" already; the Job, "migrating".
    if (s.type === "platform:kubernetes:WorkerRollout" || s.type === "platform:kubernetes:MigrationOutcome") return undefined;
    if (WORK_OPS.has(pre.op)) return { service: s.service, phase: s.step.start, at };
    if (pre.op === "same" && WORKLOAD_TYPES.has(s.type)) return { service: s.service, phase: "unchanged", at };
    return undefined;
  }
  const out = e.resOutputsEvent?.metadata;
  if (out && WORK_OPS.has(out.op)) {
    const s = serviceStep(out.urn);
    if (!s || isPinnedImage(out) || isUnawaited(s.type, out)) return undefined;
    // on_failure: continue rolls out anyway, but the failure is shown, never passed off as "migrated".
    const exitCode = (out.new?.outputs as Record<string, unknown> | undefined)?.exitCode;
    if (MIGRATION_RUNS.has(s.type) && typeof exitCode === "number" && exitCode !== 0) {
      return { service: s.service, phase: "migration failed", at, message: `exit ${exitCode}; rolling out anyway, on_failure: continue` };
    }
    return { service: s.service, phase: s.step.done, at };
  }
  const failed = e.resOpFailedEvent?.metadata;
  if (failed) {
    const s = serviceStep(failed.urn);
    return s ? { service: s.service, phase: "failed", at } : undefined;
  }
  return undefined;
}

/** Error diagnostics of the run, attributed to a service where possible. */
export function toError(e: EngineEvent): { service?: string; message: string } | undefined {
  const d = e.diagnosticEvent;
  if (d?.severity !== "error") return undefined;
  const service = d.urn ? serviceStep(d.urn)?.service : undefined;
  return { service, message: d.message.trimEnd() };
}

/** Log files that resources reported (migration output and exit code), by service. */
export function toLogFile(e: EngineEvent): { service: string; logFile: string; exitCode?: number } | undefined {
  const out = e.resOutputsEvent?.metadata;
  if (!out || !WORK_OPS.has(out.op) || !MIGRATION_RUNS.has(parseUrn(out.urn).type)) return undefined;
  const outputs = out.new?.outputs as Record<string, unknown> | undefined;
  const s = serviceStep(out.urn);
  const exitCode = typeof outputs?.exitCode === "number" ? outputs.exitCode : undefined;
  return s && typeof outputs?.logFile === "string" ? { service: s.service, logFile: outputs.logFile, exitCode } : undefined;
}

/** The image a service runs (built or reused), as its tag and inputs hash: what a rollback redeploys. */
export function toImage(e: EngineEvent): { service: string; tag: string; hash: string } | undefined {
  const out = e.resOutputsEvent?.metadata;
  // Only the step that leaves the image in place: refresh and delete-replaced carry old outputs.
  const type = out && parseUrn(out.urn).type;
  if (!out || !(WORK_OPS.has(out.op) || out.op === "same") || (type !== "platform:docker:Image" && type !== "platform:docker:PulledImage"))
    return undefined;
  const outputs = out.new?.outputs as Record<string, unknown> | undefined;
  const s = serviceStep(out.urn);
  return s && typeof outputs?.tag === "string" && typeof outputs?.hash === "string"
    ? { service: s.service, tag: outputs.tag, hash: outputs.hash }
    : undefined;
}
