import type { Command } from "commander";
import { stackOptions } from "./stack-options.js";

export function registerDb(program: Command): void {
  const db = program.command("db").description("database tools for postgres services");
  stackOptions(db.command("connect").argument("<service>", "a postgres service of platform.yml"))
    .description("open psql on a postgres service through a local tunnel")
    .option("--tunnel-only", "only open the tunnel, print its address and keep it until Ctrl-C")
    .action(async (service, o) => (await import("./db-action.js")).runDbConnect(service, o));
}
