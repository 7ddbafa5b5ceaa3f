import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";

/**
 * A webhook message's signature, in the X-Platform-Signature header: `t=<unix seconds>,v1=<hex>`,
 * v1 being HMAC-SHA256 of `<t>.<body>` with the channel's key. A receiver recomputes it and
 * refuses a stale t (a replayed message). docs/guide/alerts.md shows it in a few lines.
 */
export const SIGNATURE_HEADER = "X-Platform-Signature";

export function signBody(body: string, key: string, now = Date.now()): string {
  const t = Math.floor(now / 1000);
  return `t=${t},v1=${createHmac("sha256", key).update(`${t}.${body}`).digest("hex")}`;
}

/** Whether `header` signs `body` with `key`, no older than `toleranceSeconds`. */
export function verifySignature(body: string, header: string, key: string, toleranceSeconds = 300, now = Date.now()): boolean {
  const t = Number(/(?:^|,)t=(\d+)/.exec(header)?.[1]);
  const v1 = /(?:^|,)v1=([0-9a-f]{64})/.exec(header)?.[1];
  if (!Number.isFinite(t) || !v1 || Math.abs(now / 1000 - t) > toleranceSeconds) return false;
  const want = createHmac("sha256", key).update(`${t}.${body}`).digest();
  return timingSafeEqual(want, Buffer.from(v1, "hex"));
}

/**
 * The project's own signing key, for a webhook without `secret:`: derived from the login's
 * passphrase (any machine with the login has it; `platform notify key` prints it for the
 * receiver), never stored.
 */
export function projectSigningKey(passphrase: string, project: string): string {
  return Buffer.from(hkdfSync("sha256", Buffer.from(passphrase, "utf8"), "platform notify key v1", project, 32)).toString("hex");
}
