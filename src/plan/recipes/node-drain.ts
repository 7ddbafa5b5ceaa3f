/**
 * The platform's graceful stop for Node servers (images/node/platform-drain.cjs): every node
 * process of an image the platform builds loads it first, so a stopping server closes the
 * edge's kept-alive connections after the request each is on instead of serving them until
 * SIGKILL. The edge can then keep connections open to Node services without giving back zero
 * downtime (src/provider/docker/edge-config.ts).
 */
import { readFileSync } from "node:fs";
import { writeLines } from "./dockerfile-parts.js";

export const NODE_DRAIN_PATH = "/opt/platform/platform-drain.cjs";
const SOURCE = new URL("../../../images/node/platform-drain.cjs", import.meta.url);

let lines: string[] | undefined;

/** A script of images/ without its comment lines, under one line that says where it comes from. */
export function readImageScript(source: URL, origin: string): string[] {
  const code = readFileSync(source, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "" && !/^\s*(\/\/|\/\*\*.*\*\/$)/.test(l));
  return [`// ${origin}`, ...code];
}

function readCode(): string[] {
  return readImageScript(
    SOURCE,
    "The platform's graceful stop for Node servers (generated from the platform's images/node/platform-drain.cjs).",
  );
}

/** Final-stage step that writes the preload (root-owned, read-only to the app). */
export function buildNodeDrainStep(): string {
  lines ??= readCode();
  return `RUN mkdir -p ${NODE_DRAIN_PATH.replace(/\/[^/]+$/, "")} && ${writeLines(NODE_DRAIN_PATH, lines)}`;
}

/** NODE_OPTIONS for the image: the drain first, then the other preloads (the OpenTelemetry start-up). */
export function buildNodeOptionsEnv(requires: readonly string[]): string {
  return `ENV NODE_OPTIONS="${[NODE_DRAIN_PATH, ...requires].map((r) => `--require ${r}`).join(" ")}"`;
}

/**
 * npm runs a script through `sh -c`, and Debian's sh (dash) forks the command instead of exec'ing
 * it: a `start: npm run worker` stopped by SIGTERM (which npm forwards to its child) then killed the
 * shell, never the server, which died with the container without running its own SIGTERM handler.
 * bash execs a simple command, so the signal reaches the script's process (measured on a worker:
 * its handler ran, exit 0 in 0.8 s). Every image the Node recipes start from is Debian with bash.
 */
export const NPM_SCRIPT_SHELL_ENV = "ENV npm_config_script_shell=/bin/bash";
