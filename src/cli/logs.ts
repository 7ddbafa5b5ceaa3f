import type { Command } from "commander";
import { stackOptions } from "./stack-options.js";

export function registerLogs(program: Command): void {
  // -f is --follow here, as in docker logs and heroku logs; the config file is --file.
  stackOptions(program.command("logs").argument("<service>", "service name from platform.yml"), false)
    .description("print a service's logs")
    .option("-f, --follow", "keep streaming new lines")
    .option("--since <when>", "only lines since a duration ago (10m, 2h) or an ISO time")
    .option("--tail <n>", "only the last n lines")
    .action(async (service, o) => (await import("./logs-action.js")).runLogs(service, o));
}
