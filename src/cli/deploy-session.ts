import type { Credentials } from "../engine/credentials.js";
import type { EngineOptions } from "../engine/deploy-flow.js";
import { type DeploymentRun, DeploymentFailure, runDeployment } from "../engine/deploy-run.js";
import { ExitCode } from "../errors.js";
import { CRON_SCHEDULER } from "../plan/naming.js";
import type { StackContext } from "./context.js";
import { createDeployView } from "./deploy-view.js";
import { pickRenderer, printJson, type RendererKind } from "./render.js";
import { studioLink } from "./studio-action.js";

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
  return {
    signal: ac.signal,
    dispose: () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

async function printSucceeded(kind: RendererKind, t: StackContext, r: DeploymentRun): Promise<void> {
  if (kind === "json") {
    printJson({
      type: "result",
      outcome: "succeeded",
      deploymentId: r.record.id,
      project: t.project,
      env: t.env,
      urls: r.urls,
      changes: r.record.changes,
      warnings: r.warnings,
      certificates: r.certificates,
    });
    return;
  }
  for (const w of r.warnings) process.stdout.write(`⚠ ${w}\n`);
  for (const c of r.certificates.filter((x) => !x.ok))
    process.stdout.write(`⚠ ${c.host}: no certificate yet: ${c.error}\n  hint: ${c.hint}\n`);
  process.stdout.write(`Deployment complete (${r.record.id})\n`);
  for (const [service, url] of Object.entries(r.urls)) process.stdout.write(`${service}: ${url}\n`);
  const link = await studioLink(t.project, t.env);
  if (link) process.stdout.write(`Studio: ${link}\n`);
}

/**
 * Runs a deployment (or a rollback) in this terminal: the live view, Ctrl-C, and the result.
 * The engine says where each service is when it fails; `--json` ends with a result object
 * either way, and the error goes on to the one top-level catch.
 */
export async function runDeploySession(
  t: StackContext,
  creds: Credentials,
  eo: EngineOptions,
  o: { json?: boolean /** Show the cron scheduler's row (a Docker stack with cron jobs). */; cronScheduler?: boolean },
  preface: string[] = [],
): Promise<void> {
  const kind = pickRenderer(o, process.env, Boolean(process.stdout.isTTY));
  const note = (line: string) => (kind === "json" ? printJson({ type: "note", message: line }) : process.stdout.write(`note: ${line}\n`));
  preface.forEach(note);
  // The progress rows: the services, and the cron scheduler of a Docker stack with cron jobs.
  const cron = o.cronScheduler && Object.values(t.config.services).some((s) => s.cron?.length);
  const services = [...Object.keys(t.config.services), ...(cron ? [CRON_SCHEDULER] : [])];
  const domains = Object.values(t.config.services).flatMap((s) => (s.public ? (s.domains ?? []) : []));
  const view = createDeployView(kind, services);
  const stop = gracefulStop();
  try {
    const r = await runDeployment({
      ...eo,
      project: t.project,
      env: t.env,
      creds,
      services,
      domains,
      signal: stop.signal,
      onNote: note,
      onProgress: (e) => view.progress(e),
    });
    await view.close();
    await printSucceeded(kind, t, r);
  } catch (e) {
    await view.close();
    if (kind === "json") {
      printJson(
        e instanceof DeploymentFailure
          ? { type: "result", outcome: e.outcome, message: e.message, services: e.services }
          : { type: "result", outcome: "failed", message: (e as Error).message },
      );
    }
    throw e;
  } finally {
    stop.dispose();
  }
}
