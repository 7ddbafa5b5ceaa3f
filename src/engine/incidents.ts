import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { NotifyChannel } from "../config/index.js";
import { homePaths } from "../home/layout.js";
import { notifyMessage } from "../notify/message.js";
import { notifyChannels, type SendOutcome } from "../notify/send.js";
import type { Credentials } from "./credentials.js";
import { resolveChannels } from "./notify-channels.js";

/**
 * An incident of one stack (a failed deploy, a service's failed backups): open from its first
 * failure to the next success. Its channels hear of it twice, once when it opens and once when
 * it resolves (`resolved: true`, with the time it began), never for each failure in between.
 * The open ones are files in this machine's home (logs/<project>/<env>/incident-<key>.json). A
 * message no channel took changes nothing: the next failure or success sends it again.
 */
export interface IncidentReport {
  readonly project: string;
  readonly env: string;
  readonly channels: readonly NotifyChannel[];
  /** Which incident: the event, and the service for a per-service one (`backup_failed-database`). */
  readonly key: string;
  readonly event: string;
  readonly service?: string;
  /** true: it failed now; false: it succeeded now. */
  readonly failing: boolean;
  /** The sentence of a failure, or of the resolution. */
  readonly message: string;
  readonly command: string;
}

const incidentFile = (project: string, env: string, key: string) => join(homePaths.logDir(project, env), `incident-${key}.json`);

/** Sends what changed (an incident opened, or resolved); nothing when nothing did. */
export async function reportIncident(r: IncidentReport, creds: Credentials, say: (line: string) => void): Promise<void> {
  if (r.channels.length === 0) return;
  const file = incidentFile(r.project, r.env, r.key);
  const open = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as { since: string; service?: string }) : undefined;
  if (r.failing === (open !== undefined)) return;
  const since = open?.since ?? new Date().toISOString();
  // A resolution names what the failure named.
  const service = r.service ?? open?.service;
  const m = notifyMessage({
    event: r.event,
    resolved: !r.failing,
    project: r.project,
    environment: r.env,
    ...(service ? { service } : {}),
    since,
    message: r.message,
    command: r.command,
  });
  const { channels, unusable } = await resolveChannels(r.project, r.env, creds, r.channels);
  for (const u of unusable) say(`⚠ notify: ${u.channel}: ${u.error}; nothing else changes`);
  const outcomes = await notifyChannels(channels, m);
  sayOutcomes(outcomes, r.failing ? r.event : `${r.event} resolved`, say);
  // Not heard by any channel: the incident stays as it was, and the next outcome tries again.
  if (outcomes.length > 0 && !outcomes.some((o) => o.ok)) return;
  if (r.failing) {
    mkdirSync(homePaths.logDir(r.project, r.env), { recursive: true });
    writeFileSync(file, JSON.stringify({ since, ...(service ? { service } : {}) }));
  } else rmSync(file, { force: true });
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
