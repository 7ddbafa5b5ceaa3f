import type { Command } from "commander";
import { resolveStackTarget, type StackOptions } from "./context.js";
import { stackOptions } from "./deploy.js";
import { printJson } from "./render.js";
import { formatTable } from "./table.js";

function seconds(a: string, b?: string): string {
  return b ? `${((Date.parse(b) - Date.parse(a)) / 1000).toFixed(1)}s` : "";
}

/** `platform deployments`: the deployment history of an environment, newest first. */
async function runDeployments(o: StackOptions): Promise<void> {
  const t = await resolveStackTarget(o);
  const { listRecords } = await import("../engine/history.js");
  const records = listRecords(t.project, t.env);
  if (o.json) { printJson(records); return; }
  if (records.length === 0) { process.stdout.write(`no deployments of ${t.project} (${t.env}) yet\n`); return; }
  process.stdout.write(formatTable(["ID", "STARTED", "OUTCOME", "DURATION", "COMMIT", "SERVICES"], records.map((r) => [
    r.id, r.startedAt, r.outcome, seconds(r.startedAt, r.finishedAt),
    r.git ? `${r.git.commit.slice(0, 8)}${r.git.dirty ? "+dirty" : ""}` : "",
    Object.entries(r.services).map(([n, s]) => `${n}:${s.phase}`).join(" "),
  ])));
}

export function registerDeployments(program: Command): void {
  stackOptions(program.command("deployments")).description("list the deployments of an environment, newest first").action(runDeployments);
}
