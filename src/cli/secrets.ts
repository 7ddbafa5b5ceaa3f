import type { Command } from "commander";
import { stackOptions } from "./stack-options.js";

/** The three subcommands' work, loaded only when one runs: `--help` stays light. */
const work = () => import("./secrets-action.js");

/**
 * `platform secrets set|list|unset`: an environment's secrets, for `${secrets.NAME}` in env.
 * Values come from standard input or a hidden prompt, never from arguments (which any
 * process can read), and are never printed.
 */
export function registerSecrets(program: Command): void {
  const secrets = program
    .command("secrets")
    .description("an environment's secrets for ${secrets.NAME} in env: set, list, unset (values are never shown)");
  stackOptions(secrets.command("set").argument("<name>", "secret name, e.g. API_TOKEN"))
    .description("set a secret from standard input, or a hidden prompt in a terminal")
    .option("-y, --yes", "create the project without asking (CI)")
    .action(async (name, o) => (await work()).runSet(name, o));
  stackOptions(secrets.command("list"))
    .description("the secrets' names, when each was set and which services use them (exit 1 when one in use is not set)")
    .action(async (o) => (await work()).runList(o));
  stackOptions(secrets.command("unset").argument("<name>", "secret name"))
    .description("remove a secret")
    .action(async (name, o) => (await work()).runUnset(name, o));
}
