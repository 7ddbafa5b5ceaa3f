import { randomUUID } from "node:crypto";

/**
 * One message to a channel: what happened (or that it is right again), where, since when, and
 * the command to look with. The JSON a webhook gets; an e-mail says the same in words. `text`
 * repeats the sentence for Slack-compatible incoming webhooks, which show it.
 */
export interface NotifyMessage {
  readonly id: string;
  /** The event (config/notify-schema.ts NOTIFY_EVENTS), or "test" from `platform notify test`. */
  readonly event: string;
  readonly resolved: boolean;
  readonly project: string;
  readonly environment: string;
  readonly service?: string;
  /** ISO time the incident began (for a resolution, the incident's start). */
  readonly since: string;
  readonly message: string;
  readonly text: string;
  readonly command: string;
}

export function notifyMessage(m: Omit<NotifyMessage, "id" | "text" | "resolved"> & { resolved?: boolean }): NotifyMessage {
  const text = `${m.resolved ? "[resolved] " : ""}${m.project} (${m.environment})${m.service ? ` ${m.service}` : ""}: ${m.message}`;
  return { id: randomUUID(), resolved: false, ...m, text };
}

/** The e-mail's subject and body for a message. */
export function emailOf(m: NotifyMessage): { subject: string; text: string } {
  const subject = `${m.resolved ? "Resolved: " : ""}${m.event} in ${m.project} (${m.environment})${m.service ? `: ${m.service}` : ""}`;
  const text = [m.text, "", `since: ${m.since}`, `look with: ${m.command}`, "", `event: ${m.event}`, `id: ${m.id}`].join("\n");
  return { subject, text };
}
