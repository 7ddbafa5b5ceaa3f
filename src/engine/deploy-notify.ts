import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config/index.js";
import { ExitCode } from "../errors.js";
import { homePaths } from "../home/layout.js";
import { notifyMessage } from "../notify/message.js";
import { notifyChannels, type SendOutcome } from "../notify/send.js";
import type { Credentials } from "./credentials.js";
import { DeploymentFailure } from "./deploy-run.js";
import { resolveChannels } from "./notify-channels.js";

/** The open deploy_failed incident of a stack: when it began (one message per incident, one when it resolves). */
const incidentFile = (project: string, env: string) => join(homePaths.logDir(project, env), "incident-deploy_failed.json");

/**
 * Tells notify: channels how a deploy ended: `deploy_failed` once when a deployment fails (not
 * when it is stopped with Ctrl-C), and `resolved` at the next one that succeeds. A channel that
 * fails is said through `say` and never changes the deploy's outcome.
 */
export async function notifyDeployOutcome(
  stack: { project: string; env: string; config: Config },
  creds: Credentials,
  failure: unknown,
  say: (line: string) => void,
): Promise<void> {
  const channels = stack.config.notify ?? [];
  if (channels.length === 0) return;
  const { project, env } = stack;
  const file = incidentFile(project, env);
  const failed = failure instanceof DeploymentFailure && failure.exitCode !== ExitCode.interrupted;
  const open = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as { since: string; service?: string }) : undefined;
  // One message per incident: a failure while one is open, or a success with none, says nothing new.
  if (failed ? open !== undefined : failure !== undefined || !open) return;
  const service = failed ? /failed \(([^,)]+)/.exec(failure.message)?.[1] : open?.service;
  const since = open?.since ?? new Date().toISOString();
  const m = notifyMessage({
    event: "deploy_failed",
    resolved: !failed,
    project,
    environment: env,
    ...(service ? { service } : {}),
    since,
    message: failed ? (failure.message.split("\n")[0] ?? "the deployment failed") : "a deployment succeeded again",
    command: `platform status${env === "preview" ? "" : ` --env ${env}`}`,
  });
  const { channels: resolved, unusable } = await resolveChannels(project, env, creds, channels);
  for (const u of unusable) say(`⚠ notify: ${u.channel}: ${u.error}; nothing else changes`);
  const outcomes = await notifyChannels(resolved, m);
  sayOutcomes(outcomes, m.resolved ? "deploy_failed resolved" : "deploy_failed", say);
  if (failed) {
    mkdirSync(homePaths.logDir(project, env), { recursive: true });
    writeFileSync(file, JSON.stringify({ since, ...(service ? { service } : {}) }));
  }
  if (!failed) rmSync(file, { force: true });
}

/** One line per channel: sent, or why not (a channel's failure changes no outcome). */
export function sayOutcomes(outcomes: readonly SendOutcome[], what: string, say: (line: string) => void): void {
  for (const o of outcomes)
    say(
      o.ok
        ? `notify: ${what} sent to ${o.channel}`
        : `⚠ notify: ${what} to ${o.channel} failed after ${o.tries} tries: ${o.error}; nothing else changes`,
    );
}
