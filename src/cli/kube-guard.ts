import type { Credentials } from "../engine/credentials.js";
import { stackTarget } from "../engine/stack-ops.js";
import { ExitCode, VisibleError } from "../errors.js";
import type { Plan } from "../plan/types.js";
import { foreignOwner } from "../provider/kubernetes/namespace-claim.js";
import { prepareScaling } from "../runtime/kube-handover.js";
import { kubeNamespaceLabels } from "../runtime/kubernetes.js";
import { namespaceName } from "../targets/kubernetes/names.js";
import { kubernetesCluster } from "../test-cluster/kubeconfig.js";
import type { StackContext } from "./context.js";

/**
 * A stack's namespace is `<project>-<env>`, so two stacks can name the same one (project `a-b`
 * in `c`, project `a` in `b-c`). The Kubernetes provider adopts an existing namespace, and a
 * destroy would then delete the other stack's objects with it: a namespace whose labels name
 * another stack, or no stack at all, is refused before anything is built.
 */
export async function refuseForeignNamespace(t: StackContext, where: { target: string; kubeconfig?: string }, plan: Plan): Promise<void> {
  if (where.target !== "kubernetes") return;
  const kube = { project: t.project, env: t.env, kubeconfig: kubernetesCluster(where.kubeconfig).kubeconfig };
  const namespace = namespaceName(plan);
  // An unreachable cluster is the deploy's to report, with the provider's own words.
  const labels = await kubeNamespaceLabels(kube, namespace).catch(() => undefined);
  const owner = foreignOwner(labels, t.project, t.env);
  if (!owner) return;
  throw new VisibleError(
    `the Kubernetes namespace ${namespace} of ${t.project} (${t.env}) already exists and belongs to ${owner}; nothing was deployed`,
    {
      exitCode: ExitCode.failed,
      details: [
        "  hint: deploy under another project name (--project NAME) or environment (--env NAME), or point --kubeconfig at another cluster",
      ],
    },
  );
}

/**
 * Between `replicas:` and `scale:` (kube-handover.ts): a scaled service's count that Pulumi set is
 * handed over first, so the deploy does not drop it to one pod; an autoscaler no longer wanted is
 * removed first, so that it cannot raise the new count while the deploy runs.
 */
export async function handOverScaledReplicas(
  t: StackContext,
  where: { target: string; kubeconfig?: string },
  plan: Plan,
  progress: (line: string) => void,
): Promise<void> {
  if (where.target !== "kubernetes") return;
  const kube = { project: t.project, env: t.env, kubeconfig: kubernetesCluster(where.kubeconfig).kubeconfig };
  const services = plan.services.map((s) => ({ name: s.name, scaled: s.scale !== undefined }));
  // An unreachable cluster is the deploy's to report, with the provider's own words.
  const done = await prepareScaling(kube, namespaceName(plan), services).catch(() => undefined);
  for (const h of done?.handed ?? []) progress(`${h} replicas kept for the autoscaler`);
  for (const name of done?.removed ?? []) progress(`${name}: autoscaler removed before its replicas are set`);
}

/** Where this deploy goes: the flags, else the stack's settings (a later deploy keeps its target). */
export async function deployTarget(
  t: StackContext,
  creds: Credentials,
  flags: { target?: string; kubeconfig?: string },
): Promise<{ target: string; kubeconfig?: string }> {
  const saved = await stackTarget(t.project, t.env, creds);
  return { target: flags.target ?? saved.target, kubeconfig: flags.kubeconfig ?? saved.kubeconfig };
}
