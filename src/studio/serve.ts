import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import writeFileAtomic from "write-file-atomic";
import { closeTunnels } from "../runtime/tunnel.js";
import { buildApp } from "./app.js";
import { Sessions } from "./auth.js";
import { DbConsole } from "./db-console.js";
import { stateFile, statsFile } from "./files.js";
import { homePaths } from "../home/layout.js";
import { startExpiryWatch } from "./expiry-watch.js";
import { startSampler } from "./sampler.js";
import { loadDocs } from "./docs-site.js";
import { loadUi } from "./static.js";
import { StatsStore } from "./stats-store.js";
import { telemetrySources } from "./telemetry-sources.js";

/** What the running Studio writes for the CLI (mode 0600). */
export interface StudioState {
  pid: number;
  port: number;
  url: string;
  key: string;
  startedAt: string;
}

export const DEFAULT_STUDIO_PORT = 4680;

function listen(app: ReturnType<typeof buildApp>, port: number): Promise<{ server: ReturnType<typeof serve>; port: number }> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port }, (info: AddressInfo) => resolve({ server, port: info.port }));
    server.once("error", reject);
  });
}

/**
 * Runs Studio in this process until SIGTERM/SIGINT: the HTTP server on 127.0.0.1 (the
 * preferred port, else a free one), the CPU/memory sampler, the database console.
 */
export async function runStudio(preferredPort = DEFAULT_STUDIO_PORT): Promise<never> {
  mkdirSync(homePaths.studioDir(), { recursive: true, mode: 0o700 });
  const stats = new StatsStore(statsFile());
  const db = new DbConsole();
  const deps = { sessions: new Sessions(), stats, db, telemetry: telemetrySources(), writes: new Map<string, boolean>() };
  const key = randomBytes(32).toString("base64url");
  let port = 0;
  const app = buildApp(deps, { port: () => port, adminKey: key, ui: loadUi(), docs: loadDocs() });
  const bound = await listen(app, preferredPort).catch(() => listen(app, 0));
  port = bound.port;
  const sampler = startSampler(stats);
  const expiry = startExpiryWatch((line) => process.stdout.write(`${new Date().toISOString()} ${line}\n`));
  const state: StudioState = { pid: process.pid, port, url: `http://127.0.0.1:${port}`, key, startedAt: new Date().toISOString() };
  writeFileAtomic.sync(stateFile(), `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  process.stdout.write(`studio listening on ${state.url} (pid ${process.pid})\n`);
  return new Promise<never>(() => {
    const stop = async () => {
      sampler.stop();
      expiry.stop();
      bound.server.close();
      await db.close();
      await closeTunnels("studio").catch(() => undefined);
      stats.close();
      rmSync(stateFile(), { force: true });
      process.exit(0);
    };
    process.once("SIGTERM", () => void stop());
    process.once("SIGINT", () => void stop());
  });
}
