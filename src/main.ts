import { CommanderError } from "commander";
import { buildProgram } from "./cli/program.js";
import { ExitCode, VisibleError } from "./errors.js";
import { PLATFORM_VERSION } from "./version.js";

// The one top-level catch: people get clean messages, bugs say they are bugs.
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram(PLATFORM_VERSION);
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : ExitCode.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    if (err instanceof VisibleError) {
      process.stderr.write(`✖ ${err.message}\n`);
      for (const line of err.details) process.stderr.write(`${line}\n`);
      return err.exitCode;
    }
    const verbose = argv.includes("--verbose");
    const e = err as Error;
    process.stderr.write(`✖ internal error (a bug in platform): ${e?.message ?? String(err)}\n`);
    process.stderr.write(verbose ? `${e?.stack ?? ""}\n` : "  run again with --verbose for the stack trace, and report it\n");
    return ExitCode.bug;
  }
}

