import type { Command } from "commander";

// The renderer is pure and light (config/format.js only); test/unit/config reads it from here.
export { renderValidateResult } from "./validate-render.js";

export function registerValidate(program: Command): void {
  program
    .command("validate")
    .description("check platform.yml offline: every problem, with file:line:col and a hint")
    .option("-f, --file <path>", "the config file to check", "platform.yml")
    .option("-e, --env <name>", "environment whose secrets ${secrets.NAME} must be set (warnings)", "preview")
    .option("--json", "print one JSON object: {valid, file, services, errors, warnings}")
    .addHelpText("after", "\nExit codes: 0 valid (warnings are printed), 1 invalid, 2 usage error or unreadable file.")
    .action(async (o) => (await import("./validate-action.js")).runValidate(o));
}
