import { Command } from "commander";
import { registerValidate } from "./validate.js";

/**
 * Builds the commander program. Command modules keep their top level light; anything heavy
 * (Pulumi, dockerode) is imported inside an action, so `validate` and `--help` stay fast.
 */
export function buildProgram(version: string): Command {
  const program = new Command("platform")
    .description("Deploy the services of a platform.yml (FastAPI, Next.js, PostgreSQL) with Pulumi")
    .version(version, "-V, --version")
    .option("--verbose", "show stack traces for internal errors")
    .showHelpAfterError()
    .exitOverride();
  registerValidate(program);
  return program;
}
