import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { readExpiry, timeLeft } from "../engine/env-expiry.js";
import { removeEnvironment } from "../engine/env-remove.js";
import { listRecords } from "../engine/history.js";
import { requireCredentials } from "../engine/credentials.js";
import { ExitCode, VisibleError } from "../errors.js";
import { homePaths } from "../home/layout.js";
import { listAllServiceContainers, requireEngine } from "../runtime/docker.js";
import { resolveStack } from "./context.js";
import { printJson } from "./render.js";
import type { StackOptions } from "./stack-options.js";
import { formatTable } from "./table.js";

function age(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** The environments of a project: those with a deployment history here, and those with containers on the engine. */
async function environments(project: string) {
  const historyRoot = join(homePaths.workspaceDir(project), "deployments");
  const fromHistory = existsSync(historyRoot) ? readdirSync(historyRoot) : [];
  const containers = (await listAllServiceContainers()).filter((c) => c.project === project);
  const names = [...new Set([...fromHistory, ...containers.map((c) => c.env)])].sort();
  return names.map((env) => {
    const records = listRecords(project, env);
    const mine = containers.filter((c) => c.env === env);
    const running = mine.filter((c) => c.state === "running").length;
    const last = records.find((r) => r.outcome === "succeeded");
    const first = records[records.length - 1];
    const state = !mine.length ? "no services" : running === mine.length ? `running (${running})` : `${running} of ${mine.length} running`;
    const expiresAt = readExpiry(project, env)?.expiresAt;
    return { env, createdAt: first?.startedAt, state, lastDeployment: records[0]?.outcome, expiresAt, urls: last?.urls ?? {} };
  });
}

/** `platform envs`: the project's environments. */
export async function runEnvs(o: StackOptions): Promise<void> {
  const t = await resolveStack(o);
  await requireEngine();
  const list = await environments(t.project);
  if (o.json) {
    printJson({ project: t.project, environments: list });
    return;
  }
  if (!list.length) {
    process.stdout.write(`No environments of ${t.project} here yet: platform deploy makes one\n`);
    return;
  }
  process.stdout.write(
    formatTable(
      ["ENV", "AGE", "STATE", "LAST DEPLOY", "EXPIRES", "URLS"],
      list.map((e) => [
        e.env,
        e.createdAt ? age(e.createdAt) : "-",
        e.state,
        e.lastDeployment ?? "-",
        e.expiresAt ? timeLeft(e.expiresAt) : "-",
        Object.values(e.urls).join(" ") || "-",
      ]),
    ),
  );
}

/** `platform envs delete NAME`: destroy --delete-data, then its backups and history. */
export async function runEnvsDelete(name: string, o: StackOptions & { yes?: boolean }): Promise<void> {
  const t = await resolveStack(o);
  if (!o.yes && !process.stdin.isTTY)
    throw new VisibleError(
      `envs delete needs confirmation: run again with --yes to remove ${t.project} (${name}) with its data and backups`,
      {
        exitCode: ExitCode.usage,
      },
    );
  const creds = requireCredentials();
  await requireEngine();
  const r = await removeEnvironment({ project: t.project, env: name, configFile: t.configFile }, creds, (line) => {
    if (!o.json) process.stdout.write(`note: ${line}\n`);
  });
  if (o.json) {
    printJson({ project: t.project, env: name, deletedResources: r.deleted, deletedVolumes: r.volumes });
    return;
  }
  process.stdout.write(
    `✓ Removed ${t.project} (${name}): ${r.deleted} resources${r.volumes.length ? `; data removed: ${r.volumes.join(", ")}` : ""}\n`,
  );
  process.stdout.write(`  backups and deployment history of ${name} removed\n`);
}
