import type { Credentials } from "./credentials.js";
import { publicUrls, writeStackConfig } from "./deploy.js";
import { listRecords } from "./history.js";
import { selectExistingStack } from "./workspace.js";

/** Outputs of a stack, secrets left masked unless asked for. */
export async function stackOutputs(project: string, env: string, creds: Credentials): Promise<Record<string, { value: unknown; secret: boolean }>> {
  const stack = await selectExistingStack(project, env, creds);
  return stack ? stack.outputs() : {};
}

export async function stackUrls(project: string, env: string, creds: Credentials): Promise<Record<string, string>> {
  return publicUrls(await stackOutputs(project, env, creds));
}

/** Removes every resource of the stack; retained database volumes stay (see Volume). */
export async function destroyStack(project: string, env: string, creds: Credentials, configFile: string | undefined, onOutput?: (s: string) => void): Promise<number> {
  const stack = await selectExistingStack(project, env, creds);
  if (!stack) return 0;
  if (configFile) await writeStackConfig(stack, { configFile }, listRecords(project, env)[0]?.id ?? "");
  const res = await stack.destroy({ color: "never", onOutput });
  return res.summary.resourceChanges?.delete ?? 0;
}
