import type { Command } from "commander";
import { stackOptions } from "./stack-options.js";

export function registerRollback(program: Command): void {
  stackOptions(program.command("rollback"))
    .argument("[deployment]", "the deployment to go back to (default: the last successful one before the current)")
    .description("redeploy an earlier deployment's images and configuration without building")
    .action(async (id, o) => (await import("./rollback-action.js")).runRollback(id, o));
}
