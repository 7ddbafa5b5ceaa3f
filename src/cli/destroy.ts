import type { Command } from "commander";
import { stackOptions } from "./stack-options.js";

export function registerDestroy(program: Command): void {
  stackOptions(program.command("destroy"))
    .description("remove the services of an environment (permanent database data is kept unless --delete-data)")
    .option("--delete-data", "also remove the databases' data volumes")
    .option("-y, --yes", "do not ask for confirmation")
    .action(async (o) => (await import("./destroy-action.js")).runDestroy(o));
}
