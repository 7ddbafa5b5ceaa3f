import type { EngineEvent } from "@pulumi/pulumi/automation/index.js";

/**
 * The small progress model the CLI renders and deployment records keep: per service, the
 * phases it went through. Engine events name resources; the resource naming of the targets
 * (`<svc>-image`, `<svc>-migrate`, `<svc>`) says which service and which step they are.
 */
export type Phase = "Installing" | "built" | "migrating" | "migrated" | "starting" | "healthy" | "unchanged" | "failed";

export interface ProgressEvent {
  readonly service: string;
  readonly phase: Phase;
  /** ms since epoch */
  readonly at: number;
  readonly message?: string;
}

const STEP_OF_TYPE: Record<string, { suffix: string; start: Phase; done: Phase }> = {
  "platform:docker:Image": { suffix: "-image", start: "Installing", done: "built" },
  "platform:docker:Job": { suffix: "-migrate", start: "migrating", done: "migrated" },
  "platform:docker:Container": { suffix: "", start: "starting", done: "healthy" },
};

const WORK_OPS = new Set(["create", "replace", "create-replacement", "update"]);

/** urn:pulumi:<stack>::<project>::<type>::<name> */
export function parseUrn(urn: string): { type: string; name: string } {
  const parts = urn.split("::");
  const type = (parts[2] ?? "").split("$").pop() ?? "";
  return { type, name: parts.slice(3).join("::") };
}

function serviceStep(urn: string) {
  const { type, name } = parseUrn(urn);
  const step = STEP_OF_TYPE[type];
  if (!step || !name.endsWith(step.suffix)) return undefined;
  return { step, type, service: name.slice(0, name.length - step.suffix.length) };
}

/** Maps one engine event to progress; most events say nothing about a service. */
export function toProgress(e: EngineEvent): ProgressEvent | undefined {
  const at = e.timestamp * 1000;
  const pre = e.resourcePreEvent?.metadata;
  if (pre) {
    const s = serviceStep(pre.urn);
    if (!s) return undefined;
    if (WORK_OPS.has(pre.op)) return { service: s.service, phase: s.step.start, at };
    if (pre.op === "same" && s.type === "platform:docker:Container") return { service: s.service, phase: "unchanged", at };
    return undefined;
  }
  const out = e.resOutputsEvent?.metadata;
  if (out && WORK_OPS.has(out.op)) {
    const s = serviceStep(out.urn);
    return s ? { service: s.service, phase: s.step.done, at } : undefined;
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
  if (!d || d.severity !== "error") return undefined;
  const service = d.urn ? serviceStep(d.urn)?.service : undefined;
  return { service, message: d.message.trimEnd() };
}

/** Log files that resources reported (migration output), by service. */
export function toLogFile(e: EngineEvent): { service: string; logFile: string } | undefined {
  const out = e.resOutputsEvent?.metadata;
  if (!out || parseUrn(out.urn).type !== "platform:docker:Job") return undefined;
  const logFile = (out.new?.outputs as Record<string, unknown> | undefined)?.logFile;
  const s = serviceStep(out.urn);
  return s && typeof logFile === "string" ? { service: s.service, logFile } : undefined;
}
