import type { Command } from "commander";
import { stackOptions } from "./stack-options.js";

export function registerDomains(program: Command): void {
  stackOptions(program.command("domains"))
    .description(
      "custom domains of platform.yml: where each one's DNS points (this server or not, and the record to create) and its certificate (exit 1 when one is not ready)",
    )
    .action(async (o) => (await import("./domains-action.js")).runDomains(o));
}
