import { z } from "zod";
import type { NotifyChannel } from "./types.js";

/** What the platform tells a channel about (docs/guide/alerts.md). */
export const NOTIFY_EVENTS = [
  "deploy_failed",
  "crash_loop",
  "oom_killed",
  "health_failing",
  "backup_failed",
  "backup_overdue",
  "certificate_renewal_failed",
  "certificate_expiring",
  "disk_full",
  "environment_expired",
] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

const SECRET_HINT = "a ${secrets.NAME} reference (platform secrets set NAME): never the value itself";

const events = z
  .array(z.enum(NOTIFY_EVENTS))
  .describe(`The events this channel gets: ${NOTIFY_EVENTS.join(", ")}. Default: every event.`)
  .meta({ examples: [["deploy_failed", "crash_loop"]] })
  .optional();

/**
 * `notify:` at the top of platform.yml: where the platform tells the team what went wrong (and
 * when it is right again). Each channel is a webhook or an e-mail address list.
 */
export const notifySchema = z
  .array(
    z
      .strictObject({
        webhook: z
          .string()
          .describe(
            "A URL the platform POSTs each message to, as JSON (an event field, a sentence in text and message, the project, environment, service and the command to look with), signed with HMAC-SHA256 in the X-Platform-Signature header. Slack-compatible incoming webhooks work as they are (they show text).",
          )
          .meta({ examples: ["https://hooks.slack.com/services/T000/B000/XXXX"] })
          .optional(),
        secret: z
          .string()
          .describe(
            `The webhook's signing key: ${SECRET_HINT}. Optional: without it, the key is the project's own (platform notify key prints it).`,
          )
          .meta({ examples: ["${secrets.WEBHOOK_KEY}"] })
          .optional(),
        email: z
          .strictObject({
            to: z
              .union([z.string(), z.array(z.string())])
              .describe("Who gets the message: one address or a list.")
              .meta({ examples: [["ops@example.com"]] }),
            from: z
              .string()
              .describe("The sender. Default: the SMTP user.")
              .meta({ examples: ["platform@example.com"] })
              .optional(),
            smtp: z
              .string()
              .describe(
                "The SMTP server: smtp://host:port (STARTTLS, required: a server that does not offer it is refused) or smtps://host:port (TLS from the start). Default port 587, 465 for smtps.",
              )
              .meta({ examples: ["smtp://smtp.example.com:587"] }),
            user: z
              .string()
              .describe(`The SMTP user: ${SECRET_HINT}, or plain text.`)
              .meta({ examples: ["platform@example.com"] })
              .optional(),
            password: z
              .string()
              .describe(`The SMTP password: ${SECRET_HINT}.`)
              .meta({ examples: ["${secrets.SMTP_PASSWORD}"] })
              .optional(),
          })
          .describe("Messages by e-mail, through an SMTP server with TLS.")
          .meta({
            examples: [
              {
                to: "ops@example.com",
                smtp: "smtp://smtp.example.com:587",
                user: "platform@example.com",
                password: "${secrets.SMTP_PASSWORD}",
              },
            ],
          })
          .optional(),
        events,
      })
      .describe("One channel: webhook (with an optional secret) or email, and which events it gets."),
  )
  .describe(
    "Where the platform tells the team what went wrong, and when it is right again: webhooks and e-mail (see docs/guide/alerts.md). A failing channel never blocks a deploy. Optional.",
  )
  .meta({ examples: [[{ webhook: "https://hooks.example.com/platform", secret: "${secrets.WEBHOOK_KEY}" }]] });

/**
 * The notify: channels of a platform.yml's text, read on their own (no other rule, no path
 * check): what a kept copy of it says, wherever the copy lies. Undefined items are left out.
 */
export function notifyChannelsOf(doc: unknown): NotifyChannel[] {
  const notify = doc && typeof doc === "object" ? (doc as { notify?: unknown }).notify : undefined;
  const parsed = notifySchema.safeParse(notify);
  if (!parsed.success) return [];
  return parsed.data.map(({ email, ...c }) => ({
    ...c,
    ...(email ? { email: { ...email, to: typeof email.to === "string" ? [email.to] : email.to } } : {}),
  }));
}
