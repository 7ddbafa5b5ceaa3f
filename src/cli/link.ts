import type { Command } from "commander";

/** Both subcommands' work, loaded only when one runs: `--help` stays light. */
const work = () => import("./link-action.js");

/**
 * `platform link PROJECT` and `platform unlink`: joining an existing project is deliberate
 * (like `railway link`); a first deploy never joins one by accident.
 */
export function registerLink(program: Command): void {
  program
    .command("link")
    .argument("<project>", "the project this directory deploys to from now on")
    .description("deploy this directory to an existing (or new) project from now on")
    .option("-f, --file <path>", "the config file (its directory is linked)", "platform.yml")
    .option("--json", "machine-readable output")
    .action(async (name, o) => (await work()).runLink(name, o));

  program
    .command("unlink")
    .description("forget which project this directory deploys to (its services keep running)")
    .option("-f, --file <path>", "the config file (its directory is unlinked)", "platform.yml")
    .action(async (o) => (await work()).runUnlink(o));
}
