import type { KubeCluster } from "../runtime/kubernetes.js";
import { kubernetesCluster } from "../test-cluster/kubeconfig.js";
import { checkpointOutputs } from "./checkpoint.js";
import type { Credentials } from "./credentials.js";
import { writeStackConfig } from "./deploy.js";
import { frontDoorOf, publicUrls } from "./stack-outputs.js";
import { listRecords } from "./history.js";
import { readStackSettings, stackSettingsFile } from "./stack-settings.js";
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
  let settings = readStackSettings(stackSettingsFile(project, env));
  if (!settings) {
    const stack = await selectExistingStack(project, env, creds);
    settings = stack ? Object.fromEntries(Object.entries(await stack.getAllConfig()).map(([k, v]) => [k, v.value])) : {};
  }
  return { target: settings["platform:target"] || "docker", kubeconfig: settings["platform:kubeconfig"] || undefined };
}

/**
 * The Kubernetes cluster a stack runs on, from its settings, or undefined for the Docker
 * target: status, logs, destroy and a failed deploy read the truth from where the stack runs.
 */
export async function kubeClusterOf(stack: { project: string; env: string }, creds: Credentials): Promise<KubeCluster | undefined> {
  const s = await stackTarget(stack.project, stack.env, creds);
  if (s.target !== "kubernetes") return undefined;
  return { project: stack.project, env: stack.env, kubeconfig: kubernetesCluster(s.kubeconfig).kubeconfig };
}

/**
 * The Kubernetes cluster of a stack from its settings file alone, as its last deploy kept them
 * (Studio reads it for every environment, without credentials); undefined for a Docker stack or
 * a settings file the engine did not make.
 */
export function keptKubeCluster(project: string, env: string): KubeCluster | undefined {
  const s = readStackSettings(stackSettingsFile(project, env));
  if (s?.["platform:target"] !== "kubernetes") return undefined;
  return { project, env, kubeconfig: kubernetesCluster(s["platform:kubeconfig"] || undefined).kubeconfig };
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
