import type { Command } from "commander";
import { stackOptions } from "./stack-options.js";

export function registerStatus(program: Command): void {
  stackOptions(program.command("status"))
    .description("services, their state, URLs and images, and the last deployment (exit 1 when one is not running)")
    .action(async (o) => (await import("./status-action.js")).runStatus(o));
}
