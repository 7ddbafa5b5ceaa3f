import type { Credentials } from "../engine/credentials.js";
import type { KubeTarget } from "../runtime/kubernetes.js";
import type { StackTarget } from "./context.js";

/**
 * The Kubernetes cluster a stack runs on, from its settings, or undefined for the Docker
 * target: status, logs, destroy and a failed deploy read the truth from where the stack runs.
 */
export async function kubeTargetOf(t: Pick<StackTarget, "project" | "env">, creds: Credentials): Promise<KubeTarget | undefined> {
  const { stackTarget } = await import("../engine/stack-ops.js");
  const s = await stackTarget(t.project, t.env, creds);
  if (s.target !== "kubernetes") return undefined;
  const { kubernetesCluster } = await import("../test-cluster/kubeconfig.js");
  return { project: t.project, env: t.env, kubeconfig: kubernetesCluster(s.kubeconfig).kubeconfig };
}
