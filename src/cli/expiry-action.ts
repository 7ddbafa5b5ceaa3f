import { type Credentials, requireCredentials } from "../engine/credentials.js";
import { removeExpiredEnvironments } from "../engine/env-remove.js";

/**
 * Before a command that reaches the engine: environments of this login's backend whose
 * `--expires` has passed are removed with their data, each said on stderr. Never fails the
 * command it runs before (without a login it does nothing: the command says what is missing).
 */
export async function removeExpired(): Promise<void> {
  let creds: Credentials;
  try {
    creds = requireCredentials();
  } catch {
    return;
  }
  await removeExpiredEnvironments(creds, (line) => process.stderr.write(`→ ${line}\n`));
}
