import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { platformHome } from "../../../src/home/layout.js";

/**
 * The python of a venv with these pinned packages from PyPI, made once under the platform
 * home (toolchain/<name>) and reused; `.complete` marks a finished install.
 */
export function pythonVenv(name: string, packages: readonly string[]): string {
  const venv = join(platformHome(), "toolchain", name);
  const bin = join(venv, "bin", "python");
  if (!existsSync(join(venv, ".complete"))) {
    execFileSync("python3", ["-m", "venv", "--clear", venv], { stdio: "inherit" });
    execFileSync(bin, ["-m", "pip", "install", "-q", ...packages], { stdio: "inherit" });
    execFileSync("touch", [join(venv, ".complete")]);
  }
  return bin;
}
