import type { Command } from "commander";
import { stackOptions } from "./stack-options.js";

export function registerRun(program: Command): void {
  stackOptions(
    program
      .command("run")
      .argument("<service>", "service name from platform.yml")
      .argument("<command...>", "program and arguments, after --"),
  )
    .description(
      "run a command in a new container of a service's current image, with its variables, network and limits (e.g. platform run api -- alembic current); exits with the command's code",
    )
    .action(async (service, command, o) => (await import("./run-action.js")).runOneOff("run", service, command, o));
  stackOptions(
    program
      .command("exec")
      .argument("<service>", "service name from platform.yml")
      .argument("<command...>", "program and arguments, after --"),
  )
    .description("run a command inside a service's running container (e.g. platform exec api -- sh); exits with the command's code")
    .action(async (service, command, o) => (await import("./run-action.js")).runOneOff("exec", service, command, o));
}
