import { type ClientHttp2Session, type ClientHttp2Stream, connect, constants } from "node:http2";

/**
 * HTTP/2 through the edge as a browser tab speaks it: one TLS connection (session) per origin,
 * negotiated "h2" by ALPN, several requests multiplexed on it as concurrent streams, and a new
 * connection once the old one can take no more streams (GOAWAY, error, closed).
 *
 * Like httpsRequest, it connects to 127.0.0.1 whatever the host name (Node's resolver does not
 * map *.localhost to loopback as browsers and curl do), with the host as TLS server name and as
 * :authority, and verifies the edge's certificate against the platform CA.
 *
 * Nothing that reached the server is retried: a stream that dies (RST_STREAM, refused by a
 * GOAWAY, cut with its session, timed out) and a connection that cannot be made (refused,
 * CERT_NOT_YET_VALID, not h2) fail the request they carry, which is what a browser shows. The one
 * retry is a browser's too: a request whose HEADERS frame never left this client (its session
 * read a GOAWAY before sending it, so nghttp2 refused to open the stream) goes again on a new
 * session, at most twice. Only the client knows that frame was not sent: Node reports it as
 * `frameError` on HEADERS; a stream the server refused by a GOAWAY's last stream ID was sent and
 * still fails. Errors of a connection that carried no
 * request fail nothing, but are logged (`H2Log.events`) for the report.
 */

/** RST_STREAM and GOAWAY error codes (RFC 9113 §7), by value. */
const ERROR_CODES = [
  "NO_ERROR",
  "PROTOCOL_ERROR",
  "INTERNAL_ERROR",
  "FLOW_CONTROL_ERROR",
  "SETTINGS_TIMEOUT",
  "STREAM_CLOSED",
  "FRAME_SIZE_ERROR",
  "REFUSED_STREAM",
  "CANCEL",
  "COMPRESSION_ERROR",
  "CONNECT_ERROR",
  "ENHANCE_YOUR_CALM",
  "INADEQUATE_SECURITY",
  "HTTP_1_1_REQUIRED",
];
export const h2ErrorName = (code: number | undefined) => (code === undefined ? "none" : (ERROR_CODES[code] ?? `code ${code}`));

const errText = (e: unknown) => {
  const err = e as { code?: string; message?: string };
  return err.code && !err.message?.startsWith(err.code) ? `${err.code}: ${err.message}` : String(err.message ?? e);
};

/** What the sessions of a load did: how many were opened, the most streams one carried at once, and their ends. */
export interface H2Log {
  opened: number;
  maxStreams: number;
  events: string[];
}

export const newH2Log = (): H2Log => ({ opened: 0, maxStreams: 0, events: [] });

/** A connection could not be made (or was not h2): the request never left. */
export class H2ConnectError extends Error {}

/** One HTTP/2 session to an origin. */
class H2Connection {
  readonly session: ClientHttp2Session;
  readonly ready: Promise<void>;
  readonly authority: string;
  /** Why it takes no more streams (GOAWAY, error, closed), once it does not. */
  ended: string | undefined;
  inFlight = 0;
  /** Set when the load closes it at its end: that close is no event. */
  closedByLoad = false;
  readonly log: H2Log;

  constructor(origin: string, ca: string, timeoutMs: number, log: H2Log) {
    this.log = log;
    const u = new URL(origin);
    this.authority = u.host;
    this.session = connect(`https://127.0.0.1:${u.port || 443}`, { ca, servername: u.hostname });
    log.opened++;
    const session = this.session;
    session.on("error", (e) => this.end(`session error ${errText(e)}`));
    session.on("goaway", (code, lastStreamID) => this.end(`GOAWAY ${h2ErrorName(code)} (last stream ${lastStreamID})`));
    session.on("close", () => this.end("session closed"));
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => session.destroy(new Error(`connect timeout after ${timeoutMs} ms`)), timeoutMs);
      session.once("connect", () => {
        clearTimeout(timer);
        // The response must really come over HTTP/2, not a fallback.
        if (session.alpnProtocol === "h2") return resolve();
        const e = new H2ConnectError(`connected to ${origin} with ALPN ${session.alpnProtocol ?? "none"}, not h2`);
        session.destroy(e);
        reject(e);
      });
      session.once("close", () => {
        clearTimeout(timer);
        reject(new H2ConnectError(`connect to ${origin} failed: ${this.ended ?? "session closed"}`));
      });
    });
    this.ready.catch(() => {
      /* the requests waiting for it report it */
    });
  }

  get usable(): boolean {
    return this.ended === undefined && !this.session.closed && !this.session.destroyed;
  }

  private end(why: string): void {
    if (this.ended !== undefined) return;
    this.ended = why;
    if (!this.closedByLoad) this.log.events.push(`${this.authority}: ${why}, ${this.inFlight} streams in flight`);
  }
}

/** A browser tab's HTTP/2 connections: one per origin, replaced when it can take no more streams. */
export class H2Tab {
  private readonly current = new Map<string, H2Connection>();
  private readonly all: H2Connection[] = [];
  /** The CA certificates to trust (PEM); a function is read again for each new session. */
  private readonly ca: string | (() => string);
  private readonly timeoutMs: number;
  readonly log: H2Log;

  constructor(ca: string | (() => string), timeoutMs: number, log: H2Log) {
    this.ca = ca;
    this.timeoutMs = timeoutMs;
    this.log = log;
  }

  connection(origin: string): H2Connection {
    const c = this.current.get(origin);
    if (c?.usable) return c;
    const next = new H2Connection(origin, typeof this.ca === "function" ? this.ca() : this.ca, this.timeoutMs, this.log);
    this.current.set(origin, next);
    this.all.push(next);
    // Dead ones are kept only until they are closed.
    for (let i = this.all.length - 1; i >= 0; i--) if (this.all[i]!.session.destroyed) this.all.splice(i, 1);
    return next;
  }

  /** Closes every session (after their streams end), destroying those that take longer than `graceMs`. */
  async close(graceMs = 5_000): Promise<void> {
    await Promise.all(
      this.all.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.session.destroyed) return resolve();
            c.closedByLoad = true;
            const timer = setTimeout(() => c.session.destroy(), graceMs);
            c.session.once("close", () => {
              clearTimeout(timer);
              resolve();
            });
            c.session.close();
          }),
      ),
    );
  }
}

export interface H2Response {
  status: number;
  body: string;
}

/**
 * One request on the tab's session for the URL's origin (opened if there is none that is
 * usable). Rejects on anything but a complete response: with an H2ConnectError if the session
 * could not be made, with the stream's error, RST_STREAM code and its session's end otherwise.
 */
export async function h2Request(
  tab: H2Tab,
  url: string,
  opts: { method?: string; body?: unknown; timeoutMs: number },
): Promise<H2Response> {
  const u = new URL(url);
  // A session that received GOAWAY while this request waited for it to connect takes no new
  // stream: a browser opens another one; so does this, a few times at most.
  let conn = tab.connection(u.origin);
  for (let tries = 1; ; tries++) {
    await conn.ready;
    if (conn.usable) break;
    if (tries >= 3) throw new H2ConnectError(`no usable session to ${u.origin}: ${conn.ended}`);
    conn = tab.connection(u.origin);
  }
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  for (let unsent = 0; ; unsent++) {
    const r = await h2Stream(conn, u, opts.method ?? "GET", body, opts.timeoutMs);
    if (r !== NOT_SENT) return r;
    if (unsent >= 2) throw new Error(`the request's HEADERS were never sent, three times [session: ${conn.ended}]`);
    conn = tab.connection(u.origin);
    await conn.ready;
  }
}

/** A stream whose HEADERS frame was never sent: the request did not leave the client. */
const NOT_SENT = Symbol("not sent");
const HEADERS_FRAME = 0x1;

function h2Stream(
  c: H2Connection,
  u: URL,
  method: string,
  body: string | undefined,
  timeoutMs: number,
): Promise<H2Response | typeof NOT_SENT> {
  return new Promise<H2Response | typeof NOT_SENT>((resolve, reject) => {
    let settled = false;
    let status = 0;
    let data = "";
    let ended = false;
    const fail = (what: string) => {
      if (settled) return;
      settled = true;
      reject(new Error(c.ended ? `${what} [session: ${c.ended}]` : what));
    };
    let stream: ClientHttp2Stream;
    try {
      stream = c.session.request(
        {
          ":method": method,
          ":path": `${u.pathname}${u.search}`,
          ":scheme": "https",
          ":authority": u.host,
          ...(body ? { "content-type": "application/json", "content-length": Buffer.byteLength(body) } : {}),
        },
        { endStream: body === undefined },
      );
    } catch (e) {
      fail(`stream not opened: ${errText(e)}`);
      return;
    }
    c.inFlight++;
    c.log.maxStreams = Math.max(c.log.maxStreams, c.inFlight);
    stream.setEncoding("utf8");
    stream.on("response", (headers) => {
      status = Number(headers[":status"]);
    });
    stream.on("data", (chunk: string) => {
      data += chunk;
    });
    // A stream that the server resets (RST_STREAM) also ends its body first: only a close
    // without an error code after the whole body is a complete response.
    stream.on("end", () => {
      ended = true;
    });
    stream.on("aborted", () => fail(`stream aborted${status ? ` after HTTP ${status}` : ""} (RST_STREAM ${h2ErrorName(stream.rstCode)})`));
    stream.on("frameError", (type: number, code: number) => {
      if (type !== HEADERS_FRAME || status) return fail(`frame error sending frame type ${type}: ${h2ErrorName(code)}`);
      if (settled) return;
      settled = true;
      resolve(NOT_SENT);
    });
    stream.on("error", (e) => fail(`${errText(e)}${status ? ` after HTTP ${status}` : ""}`));
    stream.on("close", () => {
      c.inFlight--;
      const after = status ? `, after HTTP ${status} and ${data.length} characters of body` : ", before a response";
      if (stream.rstCode !== undefined && stream.rstCode !== constants.NGHTTP2_NO_ERROR)
        fail(`stream reset: RST_STREAM ${h2ErrorName(stream.rstCode)}${after}`);
      else if (!ended || status === 0) fail(`stream closed before its response ended${after}`);
      else if (!settled) {
        settled = true;
        resolve({ status, body: data });
      }
    });
    stream.setTimeout(timeoutMs, () => {
      fail("timeout");
      stream.close(constants.NGHTTP2_CANCEL);
    });
    if (body !== undefined) stream.end(body);
  });
}
