import { lstatSync, mkdirSync, readdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { homePaths } from "../home/layout.js";

/** The person's own Pulumi home: PULUMI_HOME, else ~/.pulumi. */
function userPulumiHome(): string {
  return process.env.PULUMI_HOME || join(homedir(), ".pulumi");
}

/** What the engine home's `logs` holds instead of a directory. */
const NO_LOGS = [
  "This is a file, not a directory, on purpose: the Pulumi engine that platform runs logs every",
  "command at debug level into PULUMI_HOME/logs when it can (Pulumi 3.259 and later: about 0.2 s",
  "of CPU per deploy, 0.55 s at 40 services, and up to 500 MB kept). Each deployment's own engine",
  "log is in ~/.platform/logs/<project>/<env>/<deployment>.log. Your own `pulumi` runs keep logging",
  "into your own PULUMI_HOME.",
  "",
].join("\n");

/**
 * The PULUMI_HOME of the platform's engine runs: everything of the person's own (plugins,
 * credentials, workspaces...) by symbolic links, but `logs` a file, so the engine's automatic
 * debug log cannot start (it needs that directory; the engine says nothing and goes on). Links
 * are added for what appeared since; `plugins` and `workspaces` always exist, so the engine
 * finds its plugins and writes its stack selections where `pulumi` by hand reads them.
 */
export function engineHome(): string {
  const own = userPulumiHome();
  const home = homePaths.engineDir("pulumi-home");
  mkdirSync(home, { recursive: true, mode: 0o700 });
  for (const dir of ["plugins", "workspaces"]) mkdirSync(join(own, dir), { recursive: true, mode: 0o700 });
  for (const entry of readdirSync(own)) {
    if (entry !== "logs") ensureSymlink(join(own, entry), join(home, entry));
  }
  const logs = join(home, "logs");
  if (!isFile(logs)) {
    rmSync(logs, { force: true, recursive: true });
    writeFileSync(logs, NO_LOGS, { mode: 0o600 });
  }
  return home;
}

/** `link` a symbolic link to `target`, whatever was there; one made at the same moment by another process is fine. */
export function ensureSymlink(target: string, link: string): void {
  if (readlink(link) === target) return;
  rmSync(link, { force: true, recursive: true });
  try {
    symlinkSync(target, link);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
}

function readlink(p: string): string | undefined {
  try {
    return readlinkSync(p);
  } catch {
    return undefined;
  }
}

function isFile(p: string): boolean {
  try {
    return lstatSync(p).isFile();
  } catch {
    return false;
  }
}
