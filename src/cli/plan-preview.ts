import { requireCredentials } from "../engine/credentials.js";
import { previewStack } from "../engine/preview.js";
import { VisibleError } from "../errors.js";
import type { EdgeSettings } from "../plan/settings.js";
import { requireEngine } from "../runtime/docker.js";
import type { PreviewState } from "./plan-render.js";

/**
 * The Pulumi preview of a linked project's stack, as `platform plan` shows it: a summary, no
 * stack yet, or the engine's own error lines. Not logged in or no engine stops the command.
 */
export async function previewPlan(project: string, env: string, o: { configFile: string } & EdgeSettings): Promise<PreviewState> {
  const creds = requireCredentials();
  await requireEngine();
  try {
    const summary = await previewStack(project, env, creds, o);
    return summary ? { kind: "done", summary } : { kind: "not-deployed", reason: `${project} (${env}) has no stack yet` };
  } catch (e) {
    if (e instanceof VisibleError) throw e;
    return {
      kind: "failed",
      message:
        (e as Error).message
          .split("\n")
          .filter((l) => /error/i.test(l))
          .slice(-3)
          .join("; ") || "see the engine's output",
    };
  }
}
