import { randomBytes } from "node:crypto";
import { execFile } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { workspaceDir } from "./workspace.js";
import type { ProgressEvent } from "./progress.js";

/** One deployment, as `platform deployments` lists it and Studio will show it. */
export interface DeploymentRecord {
  id: string;
  project: string;
  env: string;
  startedAt: string;
  finishedAt?: string;
  outcome: "running" | "succeeded" | "failed";
  git?: { commit: string; dirty: boolean };
  configHash: string;
  cliVersion: string;
  services: Record<string, { phase: string; phases: { phase: string; at: string }[] }>;
  migrations: Record<string, { logFile: string; output: string }>;
  urls: Record<string, string>;
  changes?: Record<string, number>;
  error?: string;
}

export function newDeploymentId(): string {
  return `dep_${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
}

function historyDir(project: string, env: string): string {
  return join(workspaceDir(project), "deployments", env);
}

export function saveRecord(r: DeploymentRecord): void {
  const dir = historyDir(r.project, r.env);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${r.id}.json`), `${JSON.stringify(r, null, 2)}\n`);
}

export function listRecords(project: string, env: string): DeploymentRecord[] {
  let files: string[] = [];
  try { files = readdirSync(historyDir(project, env)).filter((f) => f.endsWith(".json")); } catch { return []; }
  return files
    .map((f) => JSON.parse(readFileSync(join(historyDir(project, env), f), "utf8")) as DeploymentRecord)
    .sort((a, b) => b.startedAt.localeCompare(a.startedAt));
}

export function applyProgress(r: DeploymentRecord, e: ProgressEvent): void {
  const s = (r.services[e.service] ??= { phase: e.phase, phases: [] });
  s.phase = e.phase;
  s.phases.push({ phase: e.phase, at: new Date(e.at).toISOString() });
}

/** The commit of the project directory and whether it has uncommitted changes; none outside git. */
export async function gitInfo(dir: string): Promise<DeploymentRecord["git"]> {
  const run = promisify(execFile);
  try {
    const { stdout: commit } = await run("git", ["rev-parse", "HEAD"], { cwd: dir });
    const { stdout: status } = await run("git", ["status", "--porcelain", "--", "."], { cwd: dir });
    return { commit: commit.trim(), dirty: status.trim().length > 0 };
  } catch {
    return undefined;
  }
}
