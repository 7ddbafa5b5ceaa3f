import { type Command, Option } from "commander";

export function registerStudio(program: Command): void {
  program
    .command("studio")
    .description("start Studio, the web console, on 127.0.0.1 and print a one-time sign-in link (it keeps running in the background)")
    .option("--port <port>", "port on 127.0.0.1 (default 4680, else a free one)")
    .option("--stop", "stop the running Studio")
    .option("--status", "say whether Studio runs, and where (exit 1 when not)")
    .option("--json", "machine-readable output")
    .addOption(new Option("--serve", "run the server in this process (what the background process runs)").hideHelp())
    .action(async (o) => (await import("./studio-action.js")).runStudioCommand(o));
}
