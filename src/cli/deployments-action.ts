import { canRollBackTo, type DeploymentRecord, listRecords } from "../engine/history.js";
import { missingImages } from "../runtime/docker.js";
import { resolveStack } from "./context.js";
import { printJson } from "./render.js";
import { formatTable } from "./table.js";
import type { StackOptions } from "./stack-options.js";

function seconds(a: string, b?: string): string {
  return b ? `${((Date.parse(b) - Date.parse(a)) / 1000).toFixed(1)}s` : "";
}

/**
 * Per deployment: "current" for the one running, "yes" when `platform rollback ID` can go
 * back to it (it succeeded and its images are still on the engine).
 */
async function rollbackColumn(records: DeploymentRecord[]): Promise<Map<string, string>> {
  const column = new Map<string, string>();
  const current = records.find((r) => r.outcome === "succeeded");
  if (current) column.set(current.id, "current");
  for (const r of records.filter((x) => x !== current && canRollBackTo(x))) {
    const gone = await missingImages(Object.values(r.images ?? {}).map((i) => i.tag)).catch(() => ["?"]);
    column.set(r.id, gone.length === 0 ? "yes" : "images gone");
  }
  return column;
}

/** `platform deployments`: the deployment history of an environment, newest first. */
export async function runDeployments(o: StackOptions): Promise<void> {
  const t = await resolveStack(o);
  const records = listRecords(t.project, t.env);
  const rollback = await rollbackColumn(records);
  if (o.json) {
    printJson(records.map((r) => ({ ...r, rollback: rollback.get(r.id) ?? "" })));
    return;
  }
  if (records.length === 0) {
    process.stdout.write(`no deployments of ${t.project} (${t.env}) yet\n`);
    return;
  }
  process.stdout.write(
    formatTable(
      ["ID", "STARTED", "OUTCOME", "DURATION", "COMMIT", "ROLLBACK", "SERVICES"],
      records.map((r) => [
        r.id,
        r.startedAt,
        r.kind === "rollback" ? `${r.outcome} (rollback to ${r.rollbackOf})` : r.outcome,
        seconds(r.startedAt, r.finishedAt),
        r.git ? `${r.git.commit.slice(0, 8)}${r.git.dirty ? "+dirty" : ""}` : "",
        rollback.get(r.id) ?? "",
        Object.entries(r.services)
          .map(([n, s]) => `${n}:${s.phase}`)
          .join(" "),
      ]),
    ),
  );
}
