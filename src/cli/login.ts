import type { Command } from "commander";

/** The three subcommands' work, loaded only when one runs: `--help` stays light. */
const work = () => import("./login-action.js");

/** `platform login`, `logout`, `whoami`: the state backend and its secrets passphrase. */
export function registerLogin(program: Command): void {
  program
    .command("login")
    .description("set up the CLI: a Pulumi state backend (default: a directory in the platform home) and its secrets passphrase")
    .option("--backend <url>", "any Pulumi backend: file:///shared/dir, s3://bucket, https://api.pulumi.com")
    .option("--passphrase-stdin", "read the secrets passphrase from standard input (to share one with a team)")
    .action(async (o) => (await work()).runLogin(o));

  program
    .command("logout")
    .description("forget the credentials (the state and deployed services stay)")
    .action(async () => (await work()).runLogout());

  program
    .command("whoami")
    .description("show who the CLI acts as and where the state is kept")
    .option("--json", "machine-readable output")
    .action(async (o) => (await work()).runWhoami(o));
}
