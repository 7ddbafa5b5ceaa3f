import type { EngineEvent } from "@pulumi/pulumi/automation/index.js";
import type { Credentials } from "./credentials.js";
import { type DeployOptions, type StackSettingKey, writeStackConfig } from "./deploy.js";
import { acquireStackLock } from "./lock.js";
import { parseUrn, serviceOfResource } from "./progress.js";
import { currentStackSettings } from "./stack-settings.js";
import { selectExistingStack } from "./workspace.js";

/** What a deploy would do to one resource: the engine's step and the inputs that differ. */
export interface StepPreview {
  readonly op: string;
  readonly diffs: readonly string[];
}

/** Per service, what a deploy would do to its image, migration and container. */
export interface ServicePreview {
  image?: StepPreview;
  migrate?: StepPreview;
  container?: StepPreview;
}

export interface PreviewSummary {
  readonly services: Record<string, ServicePreview>;
  /** The engine's counts by step ("same", "create", "replace", ...). */
  readonly counts: Record<string, number>;
}

const STEP_OF_TYPE: Record<string, { suffix: string; key: keyof ServicePreview }> = {
  "platform:docker:Image": { suffix: "-image", key: "image" },
  "platform:docker:Job": { suffix: "-migrate", key: "migrate" },
  "platform:docker:Container": { suffix: "", key: "container" },
};

/** Engine events of a preview -> per service steps (pure; resource names say which service). */
export function summarizePreview(events: readonly EngineEvent[]): Record<string, ServicePreview> {
  const out: Record<string, ServicePreview> = {};
  for (const e of events) {
    const m = e.resourcePreEvent?.metadata;
    if (!m) continue;
    const { type, name } = parseUrn(m.urn);
    const step = STEP_OF_TYPE[type];
    if (!step || !name.endsWith(step.suffix)) continue;
    const service = serviceOfResource(name, step.suffix);
    // A replacement shows as create-replacement, replace and delete-replaced: keep "replace".
    const op = m.op === "create-replacement" || m.op === "delete-replaced" ? "replace" : m.op;
    out[service] ??= {};
    const current = out[service]![step.key];
    if (current?.op === "replace") continue;
    // The platform's provider reports what forces a replacement (keys), not a detailed diff.
    out[service]![step.key] = { op, diffs: [...(m.diffs?.length ? m.diffs : (m.keys ?? []))] };
  }
  return out;
}

export type PreviewOptions = Pick<DeployOptions, StackSettingKey>;

/**
 * A Pulumi preview of the next deploy, read from the engine's truth (refresh first): which
 * images would be rebuilt, which containers replaced and which left alone. undefined when the
 * environment was never deployed (everything would be created). It holds the stack's lock, so
 * it never runs beside a deploy, and keeps the last deployment id, so it changes no output.
 */
export async function previewStack(
  project: string,
  env: string,
  creds: Credentials,
  o: PreviewOptions,
): Promise<PreviewSummary | undefined> {
  const lock = acquireStackLock(project, env, "plan");
  try {
    const stack = await selectExistingStack(project, env, creds);
    if (!stack) return undefined;
    const current = await currentStackSettings(stack, project, env);
    await writeStackConfig(stack, { ...o, project, env }, current["platform:deploymentId"] ?? "");
    const events: EngineEvent[] = [];
    const res = await stack.preview({ onEvent: (e) => events.push(e), refresh: true, color: "never" });
    return { services: summarizePreview(events), counts: { ...(res.changeSummary as Record<string, number>) } };
  } finally {
    lock.release();
  }
}
