/**
 * The provider's contract for its Kubernetes resources (platform:kubernetes:*): the inputs the
 * program gives each resource type. The Kubernetes target builds them; the provider's handlers read them.
 */

/**
 * Inputs of platform:kubernetes:MigrationOutcome: the end of one migration Job that may fail
 * (`on_failure: continue`). Pulumi's own wait for a Job fails the deploy when the Job fails;
 * such a Job is not awaited by it, and this waits instead: it keeps the output in a log file and
 * reports the exit code, and only a Job that never ends fails the deploy.
 */
export interface MigrationOutcomeInputs {
  kubeconfig: string;
  namespace: string;
  /** The Job's name (Pulumi's, with its suffix: a new Job is a new outcome). */
  job: string;
  logDir: string;
  /** The migration's timeout; the Job's activeDeadlineSeconds ends it by then. */
  timeoutSeconds: number;
}

/** Inputs of platform:kubernetes:NamespaceClaim: a stack's claim on its namespace, made before the namespace. */
export interface NamespaceClaimInputs {
  kubeconfig: string;
  namespace: string;
  project: string;
  env: string;
}

/** Inputs of platform:kubernetes:WorkerRollout: one rollout (a generation) of a worker's Deployment. */
export interface WorkerRolloutInputs {
  kubeconfig: string;
  namespace: string;
  name: string;
  /** The Deployment's metadata.generation after the apply: a new one is a new rollout to await. */
  generation: number;
  timeoutSeconds: number;
}
