import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Studio's access model. The CLI mints a one-time sign-in token (printed in the URL); the
 * browser exchanges it once for a session cookie (HttpOnly, SameSite=Strict); a token used
 * twice, or after it expired, is refused. Only hashes of tokens and sessions are kept.
 */
const TOKEN_TTL_MS = 10 * 60 * 1000;
const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;
export const SESSION_COOKIE = "platform_studio";

const hash = (s: string) => createHash("sha256").update(s).digest("hex");

export class Sessions {
  private readonly tokens = new Map<string, number>();
  private readonly sessions = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A new one-time token, valid for ten minutes. */
  mintToken(): string {
    const token = randomBytes(24).toString("base64url");
    this.tokens.set(hash(token), this.now() + TOKEN_TTL_MS);
    return token;
  }

  /** Exchanges a token for a session id; undefined when unknown, used or expired. */
  exchange(token: string): string | undefined {
    const key = hash(token);
    const expires = this.tokens.get(key);
    this.tokens.delete(key);
    if (expires === undefined || expires < this.now()) return undefined;
    const session = randomBytes(32).toString("base64url");
    this.sessions.set(hash(session), this.now() + SESSION_TTL_MS);
    return session;
  }

  isValid(session: string | undefined): boolean {
    if (!session) return false;
    const expires = this.sessions.get(hash(session));
    return expires !== undefined && expires >= this.now();
  }

  end(session: string | undefined): void {
    if (session) this.sessions.delete(hash(session));
  }
}

/** Compares two secrets in constant time. */
export function sameSecret(a: string | undefined, b: string): boolean {
  if (a === undefined) return false;
  const x = Buffer.from(hash(a));
  const y = Buffer.from(hash(b));
  return timingSafeEqual(x, y);
}

/**
 * Against DNS rebinding and cross-site requests: the Host must be Studio's own loopback
 * address, and an Origin, when the browser sends one, the same. A page on another site (or
 * a name that was rebound to 127.0.0.1) gets 403 before anything else runs.
 */
export function allowedHost(host: string | undefined, origin: string | undefined, port: number): boolean {
  const own = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  if (!host || !own.has(host.toLowerCase())) return false;
  if (origin === undefined) return true;
  return origin === `http://${host.toLowerCase()}`;
}
