import type { Credentials } from "../engine/credentials.js";
import type { DeployOptions } from "../engine/deploy.js";
import { ExitCode, VisibleError } from "../errors.js";
import type { StackTarget } from "./context.js";
import { createDeployView } from "./deploy-view.js";
import { pickRenderer, printJson } from "./render.js";

type EngineOptions = Pick<DeployOptions, "configFile" | "projectDir" | "appsDomain" | "httpsPort" | "order" | "rollback" | "target" | "kubeconfig" | "registry">;

/**
 * Ctrl-C (or SIGTERM) once: the engine finishes the steps in flight and starts nothing new.
 * Twice: stop at once (the next deploy recovers). The handlers live as long as the run.
 */
function gracefulStop(): { signal: AbortSignal; dispose(): void } {
  const ac = new AbortController();
  const onSignal = () => {
    if (!ac.signal.aborted) {
      process.stderr.write("\n⏸ Stopping: the steps in flight finish, nothing new starts (Ctrl-C again to stop at once)\n");
      ac.abort();
      return;
    }
    process.stderr.write("✖ stopped at once; the next platform deploy recovers what was left half-done\n");
    process.exit(ExitCode.interrupted);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return { signal: ac.signal, dispose: () => { process.off("SIGINT", onSignal); process.off("SIGTERM", onSignal); } };
}

async function migrationOutput(kube: import("../runtime/kubernetes.js").KubeTarget, failed: readonly string[]): Promise<string[]> {
  const { kubeFailedMigrationLog } = await import("../runtime/kubernetes.js");
  const out: string[] = [];
  for (const service of failed) {
    const log = await kubeFailedMigrationLog(kube, service).catch(() => "");
    if (log) out.push(`${service}: its migration's last lines:`, ...log.split("\n").map((l) => `    ${l}`));
  }
  return out;
}

/** Where each service is after a failed or stopped deployment: the truth, read from the engine. */
async function whereServicesAre(t: StackTarget, creds: Credentials, phases: Record<string, { phase: string }>): Promise<{ lines: string[]; down: string[]; migrations: string[] }> {
  const { liveStates } = await import("../runtime/docker.js");
  const { kubeLiveStates } = await import("../runtime/kubernetes.js");
  const { kubeTargetOf } = await import("./stack-runtime.js");
  const kube = await kubeTargetOf(t, creds).catch(() => undefined);
  const live = await (kube ? kubeLiveStates(kube) : liveStates(t.project, t.env)).catch(() => new Map());
  const lines: string[] = [];
  // Docker's migration Job reports its output itself; a Kubernetes Job's is in its pod.
  const migrations = kube ? await migrationOutput(kube, Object.keys(phases).filter((n) => phases[n]?.phase === "failed")) : [];
  const down: string[] = [];
  for (const name of Object.keys(t.config.services)) {
    const s = live.get(name);
    if (!s?.running) down.push(name);
    lines.push(`  ${name}: ${phases[name]?.phase ?? "untouched"}; now ${s ? (s.running ? "running" : s.detail) : "not deployed"}`);
  }
  return { lines, down, migrations };
}

/** Runs a deployment (or a rollback) with the live view, and tells the truth when it fails. */
export async function runEngineDeploy(t: StackTarget, creds: Credentials, eo: EngineOptions, o: { json?: boolean }, preface: string[] = []): Promise<void> {
  const { deploy } = await import("../engine/deploy.js");
  const { pruneImages, removeOrphans } = await import("../runtime/docker.js");
  const { inSyncWithDocker } = await import("../provider/drift.js");
  const kind = pickRenderer(o, process.env, Boolean(process.stdout.isTTY));
  const note = (line: string) => (kind === "json" ? printJson({ type: "note", message: line }) : process.stdout.write(`note: ${line}\n`));
  preface.forEach(note);
  const view = createDeployView(kind, Object.keys(t.config.services));
  const stop = gracefulStop();
  try {
    const { record, urls } = await deploy({
      ...eo, project: t.project, env: t.env, creds, signal: stop.signal, onNote: note,
      onProgress: (e) => view.progress(e), removeOrphans: (known) => removeOrphans(t.project, t.env, known), inSync: inSyncWithDocker,
    });
    await view.close();
    const { imagesToKeep } = await import("../engine/history.js");
    const { imageRepository } = await import("../plan/naming.js");
    await pruneImages(imageRepository(t.project, ""), imagesToKeep(t.project)).catch(() => []);
    const warnings = Object.entries(record.migrations).filter(([, m]) => m.failed).map(([s, m]) => `${s}: migration failed (exit ${m.exitCode}); rolled out anyway (on_failure: continue); output in ${m.logFile}`);
    if (kind === "json") {
      printJson({ type: "result", outcome: "succeeded", deploymentId: record.id, project: t.project, env: t.env, urls, changes: record.changes, warnings });
      return;
    }
    for (const w of warnings) process.stdout.write(`⚠ ${w}\n`);
    process.stdout.write(`Deployment complete (${record.id})\n`);
    for (const [service, url] of Object.entries(urls)) process.stdout.write(`${service}: ${url}\n`);
    const { studioLink } = await import("./studio.js");
    const link = await studioLink(t.project, t.env);
    if (link) process.stdout.write(`Studio: ${link}\n`);
  } catch (e) {
    await view.close();
    const err = e instanceof VisibleError ? e : undefined;
    if (err && (err.exitCode === ExitCode.interrupted || /^deployment dep_\S+ failed/.test(err.message))) {
      const { listRecords } = await import("../engine/history.js");
      const where = await whereServicesAre(t, creds, listRecords(t.project, t.env)[0]?.services ?? {});
      const verdict = where.down.length === 0
        ? "what was running before keeps running"
        : `not running now: ${where.down.join(", ")}; fix the cause and run platform deploy again (platform status shows why)`;
      const stopped = err.exitCode === ExitCode.interrupted ? ["  the next platform deploy continues from here"] : [];
      const wrapped = new VisibleError(`${err.message}; ${verdict}`, { exitCode: err.exitCode, details: [...err.details, ...where.migrations, "where each service is:", ...where.lines, ...stopped] });
      if (kind === "json") printJson({ type: "result", outcome: err.exitCode === ExitCode.interrupted ? "canceled" : "failed", message: wrapped.message, services: where.lines.map((l) => l.trim()) });
      throw wrapped;
    }
    if (kind === "json") printJson({ type: "result", outcome: "failed", message: (e as Error).message });
    throw e;
  } finally {
    stop.dispose();
  }
}
