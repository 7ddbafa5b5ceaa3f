import { existsSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

/** Where scripts/test.sh writes the exit code of the Kubernetes toolchain's background build. */
export const SETUP_RC_VAR = "PLATFORM_KUBERNETES_SETUP_RC";
/** The build's process (a session leader): gone without an exit code is a build that died. */
export const SETUP_PID_VAR = "PLATFORM_KUBERNETES_SETUP_PID";

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
};

/**
 * Waits for the Kubernetes toolchain that `npm test` builds in the background while the Docker
 * tests run (scripts/test.sh). Returns at once when no build was started (a run with
 * PLATFORM_SKIP_SETUP=1, or vitest run directly: `platform cluster up` then builds what is
 * missing itself). A failed build fails the test with its log's last lines.
 */
export async function awaitKubernetesToolchain(
  rcFile = process.env[SETUP_RC_VAR],
  pollMs = 2_000,
  pid = Number(process.env[SETUP_PID_VAR] ?? 0),
): Promise<void> {
  if (!rcFile) return;
  const started = Date.now();
  const log = rcFile.replace(/\.rc$/, ".log");
  const tail = () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").slice(-30).join("\n") : "(no log)");
  let waited = false;
  while (!existsSync(rcFile)) {
    // A build that died (killed, or its shell gone) never writes its code: fail now, not at the hook's time-out.
    if (pid > 0 && !alive(pid) && !existsSync(rcFile))
      throw new Error(`the Kubernetes toolchain's background build (pid ${pid}) ended without an exit code; log ${log}:\n${tail()}`);
    if (!waited) console.log(`waiting for the Kubernetes toolchain's background build (${rcFile})`);
    waited = true;
    await sleep(pollMs);
  }
  const code = readFileSync(rcFile, "utf8").trim();
  if (code !== "0") throw new Error(`the Kubernetes toolchain's background build exited ${code}; log ${log}:\n${tail()}`);
  if (waited) console.log(`Kubernetes toolchain ready ${Math.round((Date.now() - started) / 1000)} s later`);
}
