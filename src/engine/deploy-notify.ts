import type { Config } from "../config/index.js";
import { ExitCode } from "../errors.js";
import type { Credentials } from "./credentials.js";
import { DeploymentFailure } from "./deploy-run.js";
import { reportIncident } from "./incidents.js";

/**
 * Tells notify: channels how a deploy ended: `deploy_failed` once when a deployment fails (not
 * when it is stopped with Ctrl-C), and its resolution at the next one that succeeds. Other
 * errors (a lock held, a secret missing) deployed nothing and say nothing. A channel that fails
 * is said through `say` and never changes the deploy's outcome.
 */
export async function notifyDeployOutcome(
  stack: { project: string; env: string; config: Config },
  creds: Credentials,
  failure: unknown,
  say: (line: string) => void,
): Promise<void> {
  const failed = failure instanceof DeploymentFailure && failure.exitCode !== ExitCode.interrupted;
  if (failure !== undefined && !failed) return;
  await reportIncident(
    {
      project: stack.project,
      env: stack.env,
      channels: stack.config.notify ?? [],
      key: "deploy_failed",
      event: "deploy_failed",
      ...(failed ? serviceOf(failure.message) : {}),
      failing: failed,
      message: failed ? (failure.message.split("\n")[0] ?? "the deployment failed") : "a deployment succeeded again",
      command: `platform status${stack.env === "preview" ? "" : ` --env ${stack.env}`}`,
    },
    creds,
    say,
  );
}

/** The first service a failed deployment names (`deployment dep_x failed (api, web)`). */
function serviceOf(message: string): { service?: string } {
  const service = /failed \(([^,)]+)/.exec(message)?.[1];
  return service ? { service } : {};
}
