import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { listRecords } from "../engine/history.js";
import { ExitCode, VisibleError } from "../errors.js";
import { homePaths } from "../home/layout.js";
import { listAllServiceContainers, requireEngine } from "../runtime/docker.js";
import { resolveStack } from "./context.js";
import { type DestroyOptions, runDestroy } from "./destroy-action.js";
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
    return { env, createdAt: first?.startedAt, state, lastDeployment: records[0]?.outcome, urls: last?.urls ?? {} };
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
      ["ENV", "AGE", "STATE", "LAST DEPLOY", "URLS"],
      list.map((e) => [
        e.env,
        e.createdAt ? age(e.createdAt) : "-",
        e.state,
        e.lastDeployment ?? "-",
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
  const d: DestroyOptions = { ...o, env: name, deleteData: true };
  await runDestroy(d);
  rmSync(homePaths.backupsDir(t.project, name), { recursive: true, force: true });
  rmSync(join(homePaths.workspaceDir(t.project), "deployments", name), { recursive: true, force: true });
  if (!o.json) process.stdout.write(`  backups and deployment history of ${name} removed\n`);
}
