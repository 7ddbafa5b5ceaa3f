import type { Credentials } from "./credentials.js";
import { readSecretNames, secretKey } from "./secret-names.js";
import { setSecret } from "./secrets.js";
import { selectExistingStack } from "./workspace.js";

/**
 * `deploy --env NAME --from ENV`: NAME starts with ENV's secrets, each one NAME does not set
 * itself (set before, with platform secrets set --env NAME, it wins). Values go from ENV's
 * encrypted settings to NAME's through Pulumi's own commands (standard output, standard
 * input): never an argument, never printed. Returns the names copied.
 */
export async function copySecrets(project: string, from: string, to: string, creds: Credentials): Promise<string[]> {
  const own = readSecretNames(project, to);
  const names = [...readSecretNames(project, from).keys()].filter((n) => !own.has(n));
  if (!names.length) return [];
  const source = await selectExistingStack(project, from, creds);
  if (!source) return [];
  for (const name of names) {
    const { value } = await source.getConfig(secretKey(name));
    await setSecret(project, to, creds, name, value);
  }
  return names;
}
