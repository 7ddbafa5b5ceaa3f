import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import type { EngineEvent } from "@pulumi/pulumi/automation/index.js";
import writeFileAtomic from "write-file-atomic";
import { homePaths } from "../home/layout.js";
import type { CheckpointResource } from "./checkpoint.js";

/**
 * A deploy that would change nothing, proven without the engine. After each deploy that ran
 * the engine and succeeded, the stack keeps what it applied: its program's fingerprint
 * (program-fingerprint.ts, taken before the run) and a digest of the checkpoint the run left.
 * A later deploy whose fingerprint is the same, on a checkpoint no one has changed since, and
 * whose every object is as the state holds it (drift.ts: a stopped or removed container, an
 * edited network, a certificate due for renewal all say no) has nothing to do: the engine
 * would only diff equal inputs against equal state. Anything else runs the engine as before.
 */
export interface Applied {
  readonly fingerprint: string;
  readonly checkpoint: string;
  /** The deployment that ran the engine: the stack's `deployment_id` output. */
  readonly deploymentId: string;
}

/** A digest of a checkpoint's resources: any change to the state changes it. */
export function checkpointDigest(resources: readonly CheckpointResource[]): string {
  return createHash("sha256").update(JSON.stringify(resources)).digest("hex");
}

export function readApplied(project: string, env: string): Applied | undefined {
  try {
    const a = JSON.parse(readFileSync(homePaths.appliedFile(project, env), "utf8")) as Partial<Applied>;
    return typeof a.fingerprint === "string" && typeof a.checkpoint === "string" && typeof a.deploymentId === "string"
      ? (a as Applied)
      : undefined;
  } catch {
    return undefined;
  }
}

export function writeApplied(project: string, env: string, a: Applied): void {
  const file = homePaths.appliedFile(project, env);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileAtomic.sync(file, `${JSON.stringify(a)}\n`, { mode: 0o600 });
}

export function forgetApplied(project: string, env: string): void {
  rmSync(homePaths.appliedFile(project, env), { force: true });
}

/** Whether the stack is as the last engine run left it, asked of this fingerprint and checkpoint. */
export function unchangedSince(
  applied: Applied | undefined,
  fingerprint: string | undefined,
  resources: readonly CheckpointResource[] | undefined,
): applied is Applied {
  return (
    applied !== undefined &&
    fingerprint === applied.fingerprint &&
    resources !== undefined &&
    checkpointDigest(resources) === applied.checkpoint
  );
}

const ENGINE_TYPES = /^pulumi:providers:/;

/**
 * The events a no-op run of the engine would send about these resources (each one `same`):
 * the deploy's record and live view take them as they take the engine's (every service
 * "unchanged", the images it runs), and the summary counts them.
 */
export function sameEvents(resources: readonly CheckpointResource[]): { events: EngineEvent[]; same: number } {
  // Seconds, as the engine's; to the millisecond, so a phase does not seem to start before the deployment did.
  const timestamp = Date.now() / 1000;
  const own = resources.filter((r) => !ENGINE_TYPES.test(r.type));
  const events = own.flatMap((r): EngineEvent[] => {
    const metadata = { op: "same", urn: r.urn, type: r.type, provider: "", new: { urn: r.urn, type: r.type, outputs: r.outputs ?? {} } };
    return [
      { sequence: 0, timestamp, resourcePreEvent: { metadata } },
      { sequence: 0, timestamp, resOutputsEvent: { metadata } },
    ] as unknown as EngineEvent[];
  });
  return { events, same: own.length };
}
