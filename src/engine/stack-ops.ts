import { runtimeOf, type StackPlace } from "../runtime/runtime-of.js";
import type { TargetRuntime } from "../runtime/target-runtime.js";
import { kubernetesCluster } from "../test-cluster/kubeconfig.js";
import { checkpointOutputs } from "./checkpoint.js";
import type { Credentials } from "./credentials.js";
import { writeStackConfig } from "./deploy.js";
import { frontDoorOf, publicUrls } from "./stack-outputs.js";
import { listRecords } from "./history.js";
import { parseStackSettings, resolveSettings } from "../plan/settings.js";
import { keptSettings, readStackSettings, stackSettingsFile } from "./stack-settings.js";
import { acquireStackLock } from "./lock.js";
import { knownContainers, recoverStack, repairFileBackend } from "./recover.js";
import { selectExistingStack } from "./workspace.js";

/** Outputs of a stack, secrets left masked unless asked for. */
export async function stackOutputs(
  project: string,
  env: string,
  creds: Credentials,
): Promise<Record<string, { value: unknown; secret: boolean }>> {
  const stack = await selectExistingStack(project, env, creds);
  return stack ? stack.outputs() : {};
}

/**
 * Where a stack runs, from its settings: `docker` unless deployed with `--target kubernetes`.
 * Read from the stack's settings file (every deploy and status asks); through the CLI only when
 * that file cannot be used, which costs a `stack ls` and a `config` call.
 */
export async function stackTarget(project: string, env: string, creds: Credentials): Promise<{ target: string; kubeconfig?: string }> {
  let values = readStackSettings(stackSettingsFile(project, env));
  if (!values) {
    const stack = await selectExistingStack(project, env, creds);
    values = stack ? Object.fromEntries(Object.entries(await stack.getAllConfig()).map(([k, v]) => [k, v.value])) : {};
  }
  const { target, kubeconfig } = resolveSettings({}, parseStackSettings(values));
  return { target, ...(kubeconfig ? { kubeconfig } : {}) };
}

/**
 * Where a stack runs, from its settings: its runtime (runtime/target-runtime.ts), the one way
 * status, logs, run, cron, destroy, the data commands and a failed deploy read and act on it.
 */
export async function stackRuntime(stack: { project: string; env: string }, creds: Credentials): Promise<TargetRuntime> {
  const s = await stackTarget(stack.project, stack.env, creds);
  return runtimeOf(placeOf(stack.project, stack.env, s.target, s.kubeconfig));
}

/** Where a deploy goes: the flags (--target, --kubeconfig), else the stack's settings (a later deploy keeps its target). */
export async function deployRuntime(
  stack: { project: string; env: string },
  creds: Credentials,
  given: { target?: string; kubeconfig?: string },
): Promise<TargetRuntime> {
  const kept = await stackTarget(stack.project, stack.env, creds);
  const { target, kubeconfig } = resolveSettings(given, kept);
  return runtimeOf(placeOf(stack.project, stack.env, target, kubeconfig));
}

/**
 * A stack's runtime from its settings file alone, as its last deploy kept them (Studio reads it
 * for every environment, without credentials); Docker for a settings file the engine did not make.
 */
export function keptRuntime(project: string, env: string): TargetRuntime {
  const { target, kubeconfig } = resolveSettings({}, keptSettings(project, env));
  return runtimeOf(placeOf(project, env, target, kubeconfig));
}

/** A stack's place: on Kubernetes, the cluster its kubeconfig names (the test cluster's by default). */
function placeOf(project: string, env: string, target: string | undefined, kubeconfig: string | undefined): StackPlace {
  if (target !== "kubernetes") return { project, env };
  const cluster = kubernetesCluster(kubeconfig);
  return { project, env, kubeconfig: cluster.kubeconfig, testCluster: cluster.testCluster !== undefined };
}

/** The public URLs of a stack: from a file backend's checkpoint when it can be read (checkpointOutputs), else from the CLI. */
export async function stackUrls(
  project: string,
  env: string,
  creds: Credentials,
  order?: readonly string[],
): Promise<Record<string, string>> {
  return (await stackPublicFacts(project, env, creds, order)).urls;
}

/** The port of a public URL (443 when it names none). */
export const urlPort = (url: string | undefined) => Number((url ? new URL(url).port : "") || 443);

/** The public URLs of a stack and, on a cluster's front door, the address its controller serves them at (FRONT_DOOR_OUTPUT). */
export async function stackPublicFacts(
  project: string,
  env: string,
  creds: Credentials,
  order?: readonly string[],
): Promise<{ urls: Record<string, string>; frontDoor?: string }> {
  const outputs = checkpointOutputs(creds, project, env) ?? (await stackOutputs(project, env, creds));
  return { urls: publicUrls(outputs, order), ...frontDoorOf(outputs) };
}

export interface DestroyOptions {
  readonly configFile?: string;
  readonly onOutput?: (s: string) => void;
  readonly onNote?: (line: string) => void;
  /** Removes containers of the stack that its state does not know, which would keep its network busy. */
  readonly removeOrphans?: (known: ReadonlySet<string>) => Promise<string[]>;
}

/**
 * Removes every resource of the stack; retained database volumes stay (see Volume). It holds
 * the stack's lock, recovers from an interrupted run first, and removes containers the state
 * does not know, so a half-made deploy never keeps the network from going.
 */
export async function destroyStack(project: string, env: string, creds: Credentials, o: DestroyOptions = {}): Promise<number> {
  const lock = acquireStackLock(project, env, "destroy");
  try {
    for (const n of repairFileBackend(creds, project, env)) o.onNote?.(n);
    const stack = await selectExistingStack(project, env, creds);
    if (!stack) return 0;
    const recovery = await recoverStack(stack, creds, project, env, lock.recoveredFrom, true);
    for (const n of recovery?.notes ?? []) o.onNote?.(n);
    const removed = (await o.removeOrphans?.(knownContainers(recovery?.stateIds))) ?? [];
    if (removed.length) o.onNote?.(`removed containers the state did not know: ${removed.join(", ")}`);
    if (o.configFile) await writeStackConfig(stack, { project, env, configFile: o.configFile }, listRecords(project, env)[0]?.id ?? "");
    const res = await stack.destroy({ color: "never", onOutput: o.onOutput });
    return res.summary.resourceChanges?.delete ?? 0;
  } finally {
    lock.release();
  }
}
