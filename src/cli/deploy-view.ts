import { EventEmitter } from "node:events";
import { Listr } from "listr2";
import type { ProgressEvent } from "../engine/progress.js";
import { printJson, type RendererKind } from "./render.js";

/** Shows per-service phases while a deployment runs: live (TTY), plain lines (CI), or NDJSON. */
export interface DeployView {
  progress(e: ProgressEvent): void;
  /** Ends the live view; waits until it has drawn its last frame. */
  close(): Promise<void>;
}

const TERMINAL = new Set(["healthy", "unchanged", "failed"]);

/** `api: healthy`, or with what a person needs to know: `api: migration failed (exit 3; ...)`. */
export function phaseLine(e: ProgressEvent): string {
  return `${e.service}: ${e.phase}${e.message ? ` (${e.message})` : ""}`;
}

function ttyView(services: readonly string[]): DeployView {
  const bus = new EventEmitter();
  const list = new Listr(
    services.map((name) => ({
      title: `${name}: waiting`,
      task: (_ctx: unknown, task: { title: string; skip(message?: string): void }) =>
        new Promise<void>((resolve, reject) => {
          let done = false;
          bus.on("progress", (e: ProgressEvent) => {
            if (e.service !== name) return;
            task.title = phaseLine(e);
            if (e.phase === "failed") {
              done = true;
              reject(new Error(`${name}: failed`));
            } else if (TERMINAL.has(e.phase)) {
              done = true;
              resolve();
            }
          });
          // A run that ends before this service reached a phase of its own (stopped, or failed
          // elsewhere) must not tick it as done.
          bus.on("close", () => {
            if (!done) task.skip(`${task.title.replace(/: waiting$/, ": untouched")} (stopped)`);
            resolve();
          });
        }),
    })),
    { concurrent: true, exitOnError: false, registerSignalListeners: false, rendererOptions: { collapseErrors: false } },
  );
  const done = list.run().catch(() => undefined);
  return {
    progress: (e) => bus.emit("progress", e),
    close: async () => {
      bus.emit("close");
      await done;
    },
  };
}

export function createDeployView(kind: RendererKind, services: readonly string[]): DeployView {
  if (kind === "tty") return ttyView(services);
  if (kind === "json") {
    return {
      progress: (e) =>
        printJson({
          type: "progress",
          service: e.service,
          phase: e.phase,
          at: new Date(e.at).toISOString(),
          ...(e.message ? { message: e.message } : {}),
        }),
      close: async () => {},
    };
  }
  // A service's copies (replicas) report each step: a phase the service is in already says nothing new.
  const last = new Map<string, string>();
  return {
    progress: (e) => {
      const line = phaseLine(e);
      if (last.get(e.service) === line) return;
      last.set(e.service, line);
      process.stdout.write(`${line}\n`);
    },
    close: async () => {},
  };
}
