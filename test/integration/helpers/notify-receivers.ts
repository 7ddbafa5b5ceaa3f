import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SMTPServer } from "smtp-server";
import { selfSignedCert } from "../../fixtures/self-signed.js";

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly raw: string;
  readonly body: Record<string, unknown>;
}

/** A webhook receiver on 127.0.0.1: keeps every POST it gets; `failWith` makes it answer that status. */
export async function startWebhookReceiver(): Promise<{
  url: string;
  got: Received[];
  failWith: (status?: number) => void;
  stop(): Promise<void>;
}> {
  const got: Received[] = [];
  let status = 200;
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (d: Buffer) => {
      raw += d.toString();
    });
    req.on("end", () => {
      got.push({ headers: req.headers, raw, body: JSON.parse(raw) as Record<string, unknown> });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks/platform`,
    got,
    failWith: (s = 200) => {
      status = s;
    },
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export interface Mail {
  readonly from: string;
  readonly to: string[];
  readonly raw: string;
}

/**
 * An SMTP server on 127.0.0.1 that requires STARTTLS (a certificate of its own for 127.0.0.1,
 * whose file `caFile` a client trusts with NODE_EXTRA_CA_CERTS) and a user and password.
 */
export async function startSmtpServer(
  user: string,
  password: string,
): Promise<{ url: string; caFile: string; mails: Mail[]; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "platform-smtp-"));
  const { key, cert } = selfSignedCert(dir, "smtp", { subject: "/CN=127.0.0.1", san: "IP:127.0.0.1" });
  const mails: Mail[] = [];
  const server = new SMTPServer({
    secure: false,
    key: readFileSync(key),
    cert: readFileSync(cert),
    authOptional: false,
    // Credentials only over TLS: a client that skips STARTTLS cannot log in.
    allowInsecureAuth: false,
    onAuth(auth, _session, done) {
      if (auth.username === user && auth.password === password) done(null, { user });
      else done(new Error("Invalid username or password"));
    },
    onData(stream, session, done) {
      let raw = "";
      stream.on("data", (d: Buffer) => {
        raw += d.toString();
      });
      stream.on("end", () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
        });
        done();
      });
    },
    logger: false,
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    caFile: cert,
    mails,
    stop: () =>
      new Promise<void>((r) =>
        server.close(() => {
          rmSync(dir, { recursive: true, force: true });
          r();
        }),
      ),
  };
}
