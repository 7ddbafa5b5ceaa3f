import { chmodSync, statSync } from "node:fs";
import { CommanderError } from "commander";
import { buildProgram } from "./cli/commands.js";
import { isPassphraseError, wrongPassphrase } from "./engine/passphrase.js";
import { ExitCode, VisibleError } from "./errors.js";
import { platformHome } from "./home/layout.js";
import { PLATFORM_VERSION } from "./version.js";

/**
 * What the platform writes (state, records, logs, workspaces) is its user's alone: files are
 * made 0600 and directories 0700, and a platform home made looser by an older version or by
 * hand is closed again.
 */
function keepPrivate(): void {
  process.umask(0o077);
  try {
    const home = platformHome();
    if ((statSync(home).mode & 0o077) !== 0) chmodSync(home, 0o700);
  } catch {
    /* no home yet: it is made 0700 */
  }
}

// The one top-level catch: people get clean messages, bugs say they are bugs.
export async function main(argv: string[]): Promise<number> {
  keepPrivate();
  const program = buildProgram(PLATFORM_VERSION);
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : ExitCode.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    // A stack read with the wrong passphrase can fail in any command that reads it (status, logs...).
    const visible = err instanceof VisibleError ? err : isPassphraseError(err) ? wrongPassphrase("this project's stack") : undefined;
    if (visible) {
      process.stderr.write(`✖ ${visible.message}\n`);
      for (const line of visible.details) process.stderr.write(`${line}\n`);
      return visible.exitCode;
    }
    const verbose = argv.includes("--verbose");
    const e = err as Error;
    process.stderr.write(`✖ internal error (a bug in platform): ${e?.message ?? String(err)}\n`);
    process.stderr.write(verbose ? `${e?.stack ?? ""}\n` : "  run again with --verbose for the stack trace, and report it\n");
    return ExitCode.bug;
  }
}
