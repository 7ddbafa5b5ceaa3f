import { mkdirSync } from "node:fs";
import { hostname } from "node:os";
import { type Holder, processStart, tryLock, unlock } from "../../process-lock.js";
import { homePaths, platformHome } from "../../home/layout.js";
import { edgeContainer } from "./edge-config.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `work` while no other deploy on this machine works on the edge. The edge is one
 * container shared by every application (so is the telemetry receiver, under its own lock): two first deploys at once used to each remove the
 * other's fresh edge. A lock held by a process that is gone is taken over.
 */
export async function withEdgeLock<T>(work: () => Promise<T>, what: "edge" | "telemetry" = "edge", timeoutMs = 180_000): Promise<T> {
  mkdirSync(platformHome(), { recursive: true, mode: 0o700 });
  const name = what === "edge" ? edgeContainer() : "telemetry";
  const file = homePaths.lockFile(name === "platform-edge" ? "edge.lock" : `${name}.lock`);
  const me: Holder = { pid: process.pid, pidStart: processStart(process.pid), host: hostname() };
  for (const deadline = Date.now() + timeoutMs; tryLock(file, me) !== undefined; await sleep(200)) {
    if (Date.now() > deadline)
      throw new Error(
        `another deploy has been changing the ${what === "edge" ? "HTTPS edge" : "telemetry receiver"} for ${timeoutMs / 1000}s (lock ${file}); try again`,
      );
  }
  try {
    return await work();
  } finally {
    unlock(file);
  }
}
