import type { Credentials } from "./credentials.js";
import { publicUrls, writeStackConfig } from "./deploy.js";
import { listRecords } from "./history.js";
import { openStack, stackExists } from "./workspace.js";

/** Outputs of a stack, secrets left masked unless asked for. */
export async function stackOutputs(project: string, env: string, creds: Credentials): Promise<Record<string, { value: unknown; secret: boolean }>> {
  if (!(await stackExists(project, env, creds))) return {};
  return (await openStack(project, env, creds)).outputs();
}

export async function stackUrls(project: string, env: string, creds: Credentials): Promise<Record<string, string>> {
  return publicUrls(await stackOutputs(project, env, creds));
}

/** `pulumi preview` through the engine: the change summary (no changes after a deploy). */
export async function previewStack(project: string, env: string, creds: Credentials): Promise<Record<string, number>> {
  const stack = await openStack(project, env, creds);
  const res = await stack.preview({ color: "never" });
  return res.changeSummary as Record<string, number>;
}

/** Removes every resource of the stack; retained database volumes stay (see Volume). */
export async function destroyStack(project: string, env: string, creds: Credentials, configFile: string | undefined, onOutput?: (s: string) => void): Promise<number> {
  if (!(await stackExists(project, env, creds))) return 0;
  const stack = await openStack(project, env, creds);
  if (configFile) await writeStackConfig(stack, { configFile }, listRecords(project, env)[0]?.id ?? "");
  const res = await stack.destroy({ color: "never", onOutput });
  return res.summary.resourceChanges?.delete ?? 0;
}
