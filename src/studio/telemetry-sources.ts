import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { remoteEngineAddress } from "../docker-ssh.js";
import { keptRuntime } from "../engine/stack-ops.js";
import { homePaths } from "../home/layout.js";
import type { TelemetryCopy } from "../runtime/target-runtime.js";
import { copyServerTelemetry } from "../runtime/telemetry-snapshot.js";
import { STORE_FILE, TelemetryStore } from "../telemetry/index.js";

/**
 * Where Studio reads an environment's telemetry: the Docker engine's one store (the home's
 * directory, or a copy of a server engine's), or for a Kubernetes environment a copy of its own
 * receiver's store, made afresh every few seconds while Studio is asked for it.
 */
export interface TelemetrySources {
  /** The store of one environment (the engine's shared one without a scope); undefined before there is one. */
  forScope(scope?: { project: string; env: string }): TelemetryStore | undefined;
  /** Every store opened so far: a trace id names no environment. */
  all(): TelemetryStore[];
}

/** How often Studio copies a store it cannot open in place: its metrics are this much behind at most. */
const COPY_EVERY_MS = 5000;
/** A copied store no page asked for this long is no longer refreshed (each copy is an exec). */
const IDLE_MS = 10 * 60_000;

const short = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 16);

/** The store of this machine's engine, opened read-only once the receiver has made it. */
function localStore(): () => TelemetryStore | undefined {
  let store: TelemetryStore | undefined;
  return () => {
    if (!store && existsSync(join(homePaths.telemetryDir(), STORE_FILE))) {
      try {
        store = TelemetryStore.openReadOnly(homePaths.telemetryDir());
      } catch {
        store = undefined;
      }
    }
    return store;
  };
}

/** A copy of a store out of reach, made again every few seconds (while asked for) and opened afresh. */
function copiedStore(dir: string, copy: (dir: string) => Promise<boolean>): () => TelemetryStore | undefined {
  let store: TelemetryStore | undefined;
  let asked = Date.now();
  let busy = false;
  const refresh = async () => {
    if (busy || Date.now() - asked > IDLE_MS) return;
    busy = true;
    try {
      if (!(await copy(dir).catch(() => false))) return;
      const old = store;
      try {
        store = TelemetryStore.openReadOnly(dir);
      } catch {
        store = undefined;
      }
      old?.close();
    } finally {
      busy = false;
    }
  };
  void refresh();
  setInterval(() => void refresh(), COPY_EVERY_MS).unref();
  return () => {
    const idle = Date.now() - asked > IDLE_MS;
    asked = Date.now();
    if (idle) void refresh();
    return store;
  };
}

export function telemetrySources(): TelemetrySources {
  const server = remoteEngineAddress();
  const engine = server ? copiedStore(join(homePaths.telemetryDir(), "servers", short(server)), copyServerTelemetry) : localStore();
  const clusters = new Map<string, () => TelemetryStore | undefined>();
  const ofCopy = (t: TelemetryCopy) => {
    let open = clusters.get(t.key);
    if (!open) {
      open = copiedStore(join(homePaths.telemetryDir(), t.key), (dir) => t.copy(dir));
      clusters.set(t.key, open);
    }
    return open();
  };
  return {
    forScope(scope) {
      // An environment with a store of its own (a cluster's receiver), else the engine's shared one.
      const own = scope && keptRuntime(scope.project, scope.env).telemetry;
      return own ? ofCopy(own) : engine();
    },
    all() {
      return [engine(), ...[...clusters.values()].map((open) => open())].filter((s): s is TelemetryStore => s !== undefined);
    },
  };
}
