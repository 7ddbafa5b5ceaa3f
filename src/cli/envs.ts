import type { Command } from "commander";
import { stackOptions } from "./stack-options.js";

export function registerEnvs(program: Command): void {
  const envs = stackOptions(program.command("envs"))
    .description("list the project's environments on this machine's engine: age, state, URLs")
    .action(async (o) => (await import("./envs-action.js")).runEnvs(o));
  stackOptions(envs.command("delete").argument("<name>", "the environment to remove"))
    .description("remove an environment with its data (its services, database volumes and backups)")
    .option("-y, --yes", "do not ask for confirmation")
    .action(async (name, o) => (await import("./envs-action.js")).runEnvsDelete(name, o));
}
