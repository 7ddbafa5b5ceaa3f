import type { Command } from "commander";

export function registerDoctor(program: Command): void {
  program
    .command("doctor")
    .description("check what a deploy needs (exit 0 only when a deploy can work)")
    .option("--json", "machine-readable output")
    .action(async (o) => (await import("./doctor-action.js")).runDoctor(o));
}
