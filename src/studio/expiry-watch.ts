import { requireCredentials } from "../engine/credentials.js";
import { hasExpiredEnvironments } from "../engine/env-expiry.js";
import { removeExpiredEnvironments } from "../engine/env-remove.js";

/** How often a running Studio looks for environments whose `--expires` has passed. */
const EVERY_MS = 60_000;

/**
 * While Studio runs, an environment deployed with `--expires` is removed on time even if no
 * platform command runs (one pass at a time; each removal goes to Studio's log).
 */
export function startExpiryWatch(log: (line: string) => void): { stop: () => void } {
  let busy = false;
  const pass = async () => {
    if (busy || !hasExpiredEnvironments()) return;
    busy = true;
    try {
      await removeExpiredEnvironments(requireCredentials(), (line) => log(`expiry: ${line}`));
    } catch (e) {
      log(`expiry: ${(e as Error).message.split("\n")[0]}`);
    } finally {
      busy = false;
    }
  };
  void pass();
  const timer = setInterval(() => void pass(), EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
