import { ExitCode, VisibleError } from "../errors.js";
import type { Credentials } from "./credentials.js";
import { stackSettingsFile } from "./stack-settings.js";

/**
 * Pulumi's "incorrect passphrase", in the platform's words: which stack or file, why, and the
 * ways out. Nothing was changed when it is raised: the engine refuses before any step.
 */
export function isPassphraseError(err: unknown): boolean {
  return /incorrect passphrase/i.test(String((err as Error)?.message ?? err));
}

const HOW =
  "  the passphrase comes from `platform login` (kept in ~/.platform/credentials.json), or from PLATFORM_PASSPHRASE with PLATFORM_BACKEND_URL in CI";

/** An existing stack whose secrets this login's passphrase does not decrypt. */
export function wrongPassphrase(where: string): VisibleError {
  return new VisibleError(
    `${where}: this login's passphrase does not decrypt its secrets (the stack was made with another one); nothing was changed`,
    {
      exitCode: ExitCode.environment,
      details: [HOW, "  fix: use the passphrase the stack was made with"],
    },
  );
}

/**
 * A new stack whose settings file the workspace already has: the salt of a stack made with
 * another backend or passphrase, since deleted or never in this backend.
 */
export function staleSettings(project: string, env: string, creds: Credentials): VisibleError {
  return new VisibleError(
    `${stackSettingsFile(project, env)}: the settings of environment "${env}" of project "${project}" were encrypted with another passphrase than this login's, for a stack the backend ${creds.backendUrl} does not hold`,
    {
      exitCode: ExitCode.environment,
      details: [
        HOW,
        "  fix: log in to the backend and passphrase they were made with again, or, to start this environment afresh on this backend, move that file away (its secrets cannot be read with this passphrase)",
      ],
    },
  );
}
