import type { Command } from "commander";
import { stackOptions } from "./stack-options.js";

export function registerDeployments(program: Command): void {
  stackOptions(program.command("deployments"))
    .description("list the deployments of an environment, newest first")
    .action(async (o) => (await import("./deployments-action.js")).runDeployments(o));
}
