import type { Command } from "commander";
import { stackOptions } from "./stack-options.js";

export function registerCron(program: Command): void {
  stackOptions(program.command("cron"))
    .description(
      "list the last runs of the stack's cron jobs (platform.yml cron:): when, how long, the outcome, the exit code, the last output line",
    )
    .option("--tail <n>", "how many runs", "20")
    .action(async (o) => (await import("./cron-action.js")).runCron(o));
}
