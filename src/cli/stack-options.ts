import type { Command } from "commander";

/**
 * The options every stack command takes. Each command's module imports this at start-up, so
 * it imports nothing else: `--help` and `validate` stay light.
 */
export interface StackOptions {
  file?: string;
  env?: string;
  project?: string;
  yes?: boolean;
  json?: boolean;
}

export function stackOptions(cmd: Command, fileShortFlag = true): Command {
  return cmd
    .option(fileShortFlag ? "-f, --file <path>" : "--file <path>", "the config file", "platform.yml")
    .option("-e, --env <name>", "environment (one Pulumi stack each)", "preview")
    .option("-p, --project <name>", "project name (default: the directory's project, else name in platform.yml)")
    .option("--json", "machine-readable output");
}
