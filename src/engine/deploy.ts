import { createHash } from "node:crypto";
import { createWriteStream, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { EngineEvent, Stack } from "@pulumi/pulumi/automation/index.js";
import { ExitCode, VisibleError } from "../errors.js";
import { DEFAULT_APPS_DOMAIN, DEFAULT_HTTPS_PORT } from "../plan/constants.js";
import { logDir } from "../settings.js";
import { PLATFORM_VERSION } from "../version.js";
import type { Credentials } from "./credentials.js";
import { applyProgress, type DeploymentRecord, gitInfo, newDeploymentId, saveRecord } from "./history.js";
import { type ProgressEvent, toError, toLogFile, toProgress } from "./progress.js";
import { openStack } from "./workspace.js";

export interface DeployOptions {
  readonly configFile: string;
  readonly project: string;
  readonly env: string;
  readonly creds: Credentials;
  readonly appsDomain?: string;
  readonly httpsPort?: number;
  readonly onProgress?: (e: ProgressEvent) => void;
}

export interface DeployResult {
  readonly record: DeploymentRecord;
  /** Public URL per public service, in plan order. */
  readonly urls: Record<string, string>;
}

/**
 * Stack settings `platform deploy` writes; `pulumi up` on the stack reads the same. The edge's
 * domain and port stay as they were unless given.
 */
export async function writeStackConfig(stack: Stack, o: Pick<DeployOptions, "configFile" | "appsDomain" | "httpsPort">, deploymentId: string): Promise<void> {
  const current = await stack.getAllConfig();
  const keep = (key: string, given: string | undefined, fallback: string) => ({ value: given ?? current[key]?.value ?? fallback });
  await stack.setAllConfig({
    "platform:configFile": { value: o.configFile },
    "platform:appsDomain": keep("platform:appsDomain", o.appsDomain, DEFAULT_APPS_DOMAIN),
    "platform:httpsPort": keep("platform:httpsPort", o.httpsPort?.toString(), String(DEFAULT_HTTPS_PORT)),
    "platform:deploymentId": { value: deploymentId },
  });
}

/** Public URLs from stack outputs (`<service>_external_url`). */
export function publicUrls(outputs: Record<string, { value: unknown; secret: boolean }>): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const [k, v] of Object.entries(outputs)) {
    if (k.endsWith("_external_url") && typeof v.value === "string") urls[k.slice(0, -"_external_url".length)] = v.value;
  }
  return urls;
}

function tailOf(file: string, bytes = 8000): string {
  try { return readFileSync(file, "utf8").slice(-bytes); } catch { return ""; }
}

/**
 * Runs one deployment: stack settings, `pulumi up` through the Automation API, a deployment
 * record whatever the outcome. A failure leaves what ran before untouched (the engine does not
 * replace a service whose migration or health check failed) and throws a VisibleError.
 */
export async function deploy(o: DeployOptions): Promise<DeployResult> {
  const stack = await openStack(o.project, o.env, o.creds);
  const id = newDeploymentId();
  const record: DeploymentRecord = {
    id, project: o.project, env: o.env, startedAt: new Date().toISOString(), outcome: "running",
    git: await gitInfo(dirname(o.configFile)),
    configHash: createHash("sha256").update(readFileSync(o.configFile)).digest("hex").slice(0, 16),
    cliVersion: PLATFORM_VERSION, services: {}, migrations: {}, urls: {},
  };
  saveRecord(record);
  await writeStackConfig(stack, o, id);
  const dir = logDir(o.project, o.env);
  mkdirSync(dir, { recursive: true });
  const engineLog = join(dir, `${id}.log`);
  const log = createWriteStream(engineLog);
  const errors: { service?: string; message: string }[] = [];
  const onEvent = (e: EngineEvent) => {
    const p = toProgress(e);
    if (p) { applyProgress(record, p); o.onProgress?.(p); }
    const err = toError(e);
    if (err) errors.push(err);
    const lf = toLogFile(e);
    if (lf) record.migrations[lf.service] = { logFile: lf.logFile, output: tailOf(lf.logFile) };
  };
  try {
    // refresh: read the engine's truth first, so a container or edge removed by hand comes back.
    const res = await stack.up({ onEvent, onOutput: (s) => log.write(s), color: "never", refresh: true });
    record.urls = publicUrls(res.outputs);
    record.changes = res.summary.resourceChanges as Record<string, number>;
    record.outcome = "succeeded";
    return { record, urls: record.urls };
  } catch (e) {
    record.outcome = "failed";
    record.error = errors.map((x) => x.message).join("\n") || (e as Error).message;
    // A failed migration's output belongs in the record (its log file is <service>-migrate-<time>.log).
    for (const m of record.error.matchAll(/full log: (\S+-migrate-\d+\.log)/g)) {
      const svc = errors.find((x) => x.message.includes(m[1] as string))?.service;
      if (svc) record.migrations[svc] = { logFile: m[1] as string, output: tailOf(m[1] as string) };
    }
    const failed = Object.entries(record.services).filter(([, s]) => s.phase === "failed").map(([n]) => n);
    throw new VisibleError(`deployment ${id} failed${failed.length ? ` (${failed.join(", ")})` : ""}; what was running before keeps running`, {
      exitCode: ExitCode.failed,
      details: [...cleanErrors(errors.length ? errors.map((x) => x.message) : [(e as Error).message]), `engine log: ${engineLog}`],
    });
  } finally {
    record.finishedAt = new Date().toISOString();
    saveRecord(record);
    log.end();
  }
}

/** Engine diagnostics carry a Pulumi preamble; keep the provider's own words. */
function cleanErrors(messages: string[]): string[] {
  return messages
    .map((m) => m.replace(/^error: /, "").trim())
    .filter((m) => m && !/^update failed$/i.test(m))
    .map((m) => m.split("\n").map((l) => `  ${l}`).join("\n"));
}
