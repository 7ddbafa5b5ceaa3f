import type { Command } from "commander";

/** Placeholder, replaced by the config work (issue: platform.yml language). */
export function registerValidate(program: Command): void {
  program.command("validate").description("check platform.yml").action(() => {
    throw new Error("not built yet");
  });
}
