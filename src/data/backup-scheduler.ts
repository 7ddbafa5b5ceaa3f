import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Cron } from "croner";
import { parse } from "yaml";
import { cronProblem } from "../config/backup-schema.js";
import { homePaths } from "../home/layout.js";
import { DB_NAME, DB_USER } from "../plan/build-plan.js";
import { makeBackups } from "./base-backup.js";
import type { Credentials } from "../engine/credentials.js";
import { runningDatabase } from "./db-host.js";
import { listRecords } from "../engine/history.js";
import { reportIncident } from "../engine/incidents.js";
import { notifyChannelsOf } from "../config/index.js";

/**
 * Scheduled backups, on Docker and on Kubernetes: `platform db scheduler`, a small process on
 * the machine that holds the login (run it under systemd, launchd or `nohup`). It reads the platform.yml each
 * environment was last deployed with (kept beside its deployment record), and fires each
 * postgres service's `backup.schedule` with croner (UTC; a run still going is not started
 * twice), making the same backups as `platform db backup` (kind "scheduled", `keep` applied).
 * The key stays with the login: no container, no pod and no Secret of the cluster holds anything
 * that decrypts a backup (a CronJob in the cluster would need it there). On Kubernetes the dump
 * comes out of the database's ready pod through `kubectl exec`, as with `platform db backup`.
 */
export interface BackupJob {
  project: string;
  env: string;
  service: string;
  schedule: string;
  keep?: number;
  /** The platform.yml it comes from (its notify: channels hear of failures). */
  configFile?: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The scheduled backups a platform.yml asks for (postgres services with a valid backup.schedule). */
export function jobsFromConfig(project: string, env: string, text: string): BackupJob[] {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch {
    return [];
  }
  const services = isRecord(doc) && isRecord(doc.services) ? doc.services : {};
  const jobs: BackupJob[] = [];
  for (const [service, s] of Object.entries(services)) {
    if (!isRecord(s) || s.type !== "postgres" || !isRecord(s.backup)) continue;
    const { schedule, keep } = s.backup;
    if (typeof schedule !== "string" || cronProblem(schedule)) continue;
    jobs.push({ project, env, service, schedule, ...(typeof keep === "number" && keep >= 1 ? { keep } : {}) });
  }
  return jobs;
}

/** Every environment's jobs, from the platform.yml of its newest deployment that succeeded. */
export function scheduledJobs(): BackupJob[] {
  const root = homePaths.projectsDir();
  if (!existsSync(root)) return [];
  const jobs: BackupJob[] = [];
  for (const project of readdirSync(root)) {
    const envsDir = join(homePaths.workspaceDir(project), "deployments");
    if (!existsSync(envsDir)) continue;
    for (const env of readdirSync(envsDir)) {
      const last = listRecords(project, env).find((r) => r.outcome === "succeeded" && r.configCopy);
      if (!last?.configCopy || !existsSync(last.configCopy)) continue;
      const configFile = last.configCopy;
      jobs.push(...jobsFromConfig(project, env, readFileSync(configFile, "utf8")).map((j) => ({ ...j, configFile })));
    }
  }
  return jobs;
}

const jobKey = (j: BackupJob) => `${j.project}/${j.env}/${j.service} ${j.schedule} keep=${j.keep ?? "all"}`;

/** One scheduled backup: of the service's running container or ready pod, if it runs. */
async function runJob(j: BackupJob, creds: Credentials, log: (line: string) => void): Promise<void> {
  const who = `${j.project} (${j.env}) ${j.service}`;
  let failure: string | undefined;
  try {
    const host = await runningDatabase(j.project, j.env, j.service, creds);
    if (!host) failure = "not running, no backup this time";
    else {
      const t = { project: j.project, env: j.env, service: j.service, host, user: DB_USER, database: DB_NAME };
      const { record, base, expired } = await makeBackups(t, creds.passphrase, "scheduled", j.keep === undefined ? {} : { keep: j.keep });
      log(
        `${who}: backup ${record.id}, ${record.bytes} bytes, verified${base ? `; base backup ${base.id}, ${base.bytes} bytes, verified` : ""}${expired.length ? `; removed by keep: ${expired.map((r) => r.id).join(", ")}` : ""}`,
      );
    }
  } catch (e) {
    failure = (e as Error).message;
  }
  if (failure) log(`${who}: ${failure}`);
  await tellChannels(j, failure, creds, (line) => log(`${who}: ${line}`)).catch((e: Error) => log(`${who}: notify: ${e.message}`));
}

/** notify: channels hear of a schedule's first failed backup (`backup_failed`), and of the next that worked. */
async function tellChannels(j: BackupJob, failure: string | undefined, creds: Credentials, say: (line: string) => void): Promise<void> {
  // The kept copy's notify: alone (its paths are the project's, not the copy's: no full validation).
  const channels = j.configFile && existsSync(j.configFile) ? notifyChannelsOf(parse(readFileSync(j.configFile, "utf8"))) : [];
  await reportIncident(
    {
      project: j.project,
      env: j.env,
      channels,
      key: `backup_failed-${j.service}`,
      event: "backup_failed",
      service: j.service,
      failing: failure !== undefined,
      message: failure ? `the scheduled backup failed: ${failure.split("\n")[0]}` : "scheduled backups work again",
      command: `platform db backups ${j.service} --project ${j.project}${j.env === "preview" ? "" : ` --env ${j.env}`}`,
    },
    creds,
    say,
  );
}

/**
 * Runs until `signal` aborts: the jobs (of every project, or of `project`) are read again every
 * `rescanMs` (a deploy that adds, changes or removes a schedule is picked up), each one a croner job.
 */
export async function runScheduler(
  creds: Credentials,
  log: (line: string) => void,
  signal: AbortSignal,
  o: { project?: string; rescanMs?: number } = {},
): Promise<void> {
  const running = new Map<string, Cron>();
  const rescan = () => {
    const wanted = new Map(
      scheduledJobs()
        .filter((j) => !o.project || j.project === o.project)
        .map((j) => [jobKey(j), j]),
    );
    for (const [k, cron] of running)
      if (!wanted.has(k)) {
        cron.stop();
        running.delete(k);
        log(`unscheduled ${k}`);
      }
    for (const [k, j] of wanted)
      if (!running.has(k)) {
        const cron = new Cron(j.schedule, { timezone: "UTC", protect: true }, () => runJob(j, creds, log));
        running.set(k, cron);
        log(`scheduled ${k}; next ${cron.nextRun()?.toISOString() ?? "never"}`);
      }
  };
  rescan();
  const timer = setInterval(rescan, o.rescanMs ?? 30_000);
  await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
  clearInterval(timer);
  for (const cron of running.values()) cron.stop();
}
