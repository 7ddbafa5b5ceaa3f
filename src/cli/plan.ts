import type { Command } from "commander";
import { stackOptions } from "./stack-options.js";

export function registerPlan(program: Command): void {
  stackOptions(program.command("plan"))
    .description(
      "what a deploy would do, per service and why: layout, package manager, versions, app, start, build-time variables, fallbacks, and what would be rebuilt, replaced or left alone",
    )
    .option("--no-preview", "skip the Pulumi preview (needs no engine and no login)")
    .option("--apps-domain <domain>", "base domain of public URLs (env PLATFORM_APPS_DOMAIN)")
    .option("--https-port <port>", "port of the HTTPS edge (env PLATFORM_HTTPS_PORT; default 443)")
    .option("--edge <mode>", "plan for the local or the public edge (env PLATFORM_EDGE; default: the engine's)")
    .addHelpText(
      "after",
      "\nExit codes: 0 planned, 1 invalid platform.yml or the preview failed, 2 usage error, 3 not logged in, 4 no engine.",
    )
    .action(async (o) => (await import("./plan-action.js")).runPlan(o));
}
