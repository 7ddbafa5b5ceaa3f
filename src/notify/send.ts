import nodemailer from "nodemailer";
import { emailOf, type NotifyMessage } from "./message.js";
import { SIGNATURE_HEADER, signBody } from "./sign.js";

/** A channel with its secrets' values: what sending needs. */
export type ResolvedChannel =
  | { readonly kind: "webhook"; readonly url: string; readonly key: string; readonly events?: readonly string[] }
  | {
      readonly kind: "email";
      readonly to: readonly string[];
      readonly from?: string;
      readonly smtp: string;
      readonly user?: string;
      readonly password?: string;
      readonly events?: readonly string[];
    };

export interface SendOutcome {
  /** The channel as people know it: the webhook's origin, or mailto: the addresses (never a key). */
  readonly channel: string;
  readonly ok: boolean;
  readonly tries: number;
  readonly error?: string;
}

/** Each try's wait before it: a failing channel is tried 3 times within about 4 s, then left (the message is not lost to the caller, who records it). */
const BACKOFF_MS = [0, 1000, 3000];
const TIMEOUT_MS = 10_000;

export const channelName = (c: ResolvedChannel) => (c.kind === "webhook" ? new URL(c.url).origin : `mailto:${c.to.join(",")}`);

async function postWebhook(c: Extract<ResolvedChannel, { kind: "webhook" }>, m: NotifyMessage): Promise<void> {
  const body = JSON.stringify(m);
  const r = await fetch(c.url, {
    method: "POST",
    headers: { "content-type": "application/json", "user-agent": "platform-notify", [SIGNATURE_HEADER]: signBody(body, c.key) },
    body,
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  if (!r.ok) throw new Error(`HTTP ${r.status}${r.statusText ? ` ${r.statusText}` : ""}`);
}

/** smtp:// must upgrade with STARTTLS (a server that does not offer it is refused); smtps:// is TLS from the start. */
async function sendEmail(c: Extract<ResolvedChannel, { kind: "email" }>, m: NotifyMessage): Promise<void> {
  const url = new URL(c.smtp);
  const secure = url.protocol === "smtps:";
  const transport = nodemailer.createTransport({
    host: url.hostname,
    port: Number(url.port) || (secure ? 465 : 587),
    secure,
    requireTLS: !secure,
    ...(c.user ? { auth: { user: c.user, pass: c.password ?? "" } } : {}),
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
  });
  try {
    await transport.sendMail({ from: c.from ?? c.user ?? `platform@${url.hostname}`, to: [...c.to], ...emailOf(m) });
  } finally {
    transport.close();
  }
}

/** An error's words, with what fetch hides in its cause (`fetch failed: connect ECONNREFUSED 127.0.0.1:1`). */
function why(e: unknown): string {
  const err = e as Error & { cause?: { message?: string } };
  return err.cause?.message ? `${err.message}: ${err.cause.message}` : err.message;
}

/** Sends `m` to one channel, retrying with backoff; never throws. */
export async function sendTo(
  c: ResolvedChannel,
  m: NotifyMessage,
  sleep = (ms: number) => new Promise((r) => setTimeout(r, ms)),
): Promise<SendOutcome> {
  let error = "";
  for (const [i, wait] of BACKOFF_MS.entries()) {
    if (wait) await sleep(wait);
    try {
      await (c.kind === "webhook" ? postWebhook(c, m) : sendEmail(c, m));
      return { channel: channelName(c), ok: true, tries: i + 1 };
    } catch (e) {
      error = why(e);
    }
  }
  return { channel: channelName(c), ok: false, tries: BACKOFF_MS.length, error };
}

/** Sends `m` to every channel that takes its event, at once; one outcome per channel sent to. */
export async function notifyChannels(channels: readonly ResolvedChannel[], m: NotifyMessage): Promise<SendOutcome[]> {
  const takes = (c: ResolvedChannel) => m.event === "test" || !c.events || c.events.includes(m.event);
  return Promise.all(channels.filter(takes).map((c) => sendTo(c, m)));
}
