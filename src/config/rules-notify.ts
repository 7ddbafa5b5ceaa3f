import type { PathSeg } from "./locate.js";
import { isRecord } from "./model.js";
import { type KnownSecrets, SECRET_NAME_RE } from "./rules-references.js";
import type { DiagnosticSink } from "./sink.js";

/** A value that is one secret reference and nothing else: `${secrets.NAME}`. */
export const SECRET_REF = /^\$\{secrets\.([^}]*)\}$/;

/**
 * notify: channels: each is a webhook or an e-mail list (not both, not neither); its URL a real
 * http(s) or smtp(s) one; its keys and passwords `${secrets.NAME}` references, never the value
 * (platform.yml is committed), whose secret should be set.
 */
export function validateNotify(raw: Record<string, unknown>, sink: DiagnosticSink, secrets?: KnownSecrets): void {
  if (!Array.isArray(raw.notify)) return;
  raw.notify.forEach((channel: unknown, i) => {
    if (!isRecord(channel)) return;
    const path: PathSeg[] = ["notify", i];
    const kinds = ["webhook", "email"].filter((k) => channel[k] !== undefined);
    if (kinds.length !== 1)
      sink.error({
        path,
        code: "notify-channel",
        message: kinds.length ? "a channel is a webhook or an email, not both" : "a channel needs webhook: or email:",
        hint: 'write one channel per item, e.g.\n  notify:\n    - webhook: https://hooks.example.com/platform\n    - email: {to: ops@example.com, smtp: "smtp://smtp.example.com:587", user: ops, password: ${secrets.SMTP_PASSWORD}}',
        at: "key",
      });
    if (typeof channel.webhook === "string") checkUrl([...path, "webhook"], channel.webhook, ["http:", "https:"], sink);
    if (channel.secret !== undefined && channel.webhook === undefined)
      sink.error({
        path: [...path, "secret"],
        code: "notify-secret",
        message: "secret signs webhook messages: this channel has no webhook",
        hint: "remove it, or add webhook:",
        at: "key",
      });
    checkSecret([...path, "secret"], channel.secret, sink, secrets);
    if (isRecord(channel.email)) {
      const email = channel.email;
      if (typeof email.smtp === "string") checkUrl([...path, "email", "smtp"], email.smtp, ["smtp:", "smtps:"], sink);
      checkSecret([...path, "email", "password"], email.password, sink, secrets);
      if (typeof email.user === "string" && email.user.includes("${")) checkSecret([...path, "email", "user"], email.user, sink, secrets);
    }
  });
}

function checkUrl(path: PathSeg[], text: string, protocols: string[], sink: DiagnosticSink): void {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url && protocols.includes(url.protocol) && url.hostname) return;
  sink.error({
    path,
    code: "notify-url",
    message: `"${text}" is not a ${protocols.map((p) => p.slice(0, -1)).join(" or ")} URL`,
    hint: protocols.includes("smtp:")
      ? "e.g. smtp://smtp.example.com:587 (STARTTLS) or smtps://smtp.example.com:465"
      : "e.g. https://hooks.example.com/platform",
  });
}

function checkSecret(path: PathSeg[], value: unknown, sink: DiagnosticSink, secrets?: KnownSecrets): void {
  if (value === undefined || typeof value !== "string") return;
  const name = SECRET_REF.exec(value)?.[1];
  if (name === undefined || !SECRET_NAME_RE.test(name)) {
    sink.error({
      path,
      code: "notify-secret-ref",
      message: `${path.at(-1)} must be a \${secrets.NAME} reference, not a value written in platform.yml`,
      hint: `platform secrets set ${path.at(-1) === "secret" ? "WEBHOOK_KEY" : "SMTP_PASSWORD"}, then write ${path.at(-1)}: \${secrets.${path.at(-1) === "secret" ? "WEBHOOK_KEY" : "SMTP_PASSWORD"}}`,
    });
    return;
  }
  if (secrets && !secrets.names.has(name))
    sink.warn({
      path,
      code: "secret-not-set",
      message: `secret ${name} is not set in the ${secrets.env} environment: this channel cannot be used until it is`,
      hint: `platform secrets set ${name}${secrets.env === "preview" ? "" : ` --env ${secrets.env}`} (reads the value from standard input or a hidden prompt)`,
    });
}
