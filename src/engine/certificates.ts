import { connect, type PeerCertificate } from "node:tls";
import { engineLoopbackPort } from "../docker-ssh.js";
import { checkDns, type DnsCheck } from "./dns-check.js";

/** What a host's certificate is after a deploy made sure of it. */
export interface CertificateState {
  readonly host: string;
  readonly ok: boolean;
  /** The issuer's organisation or common name (the ACME CA, or Caddy's local authority). */
  readonly issuer?: string;
  /** When the certificate expires (ISO time). */
  readonly expires?: string;
  /** Why there is none: the CA's error as the edge logged it, and what to do. */
  readonly error?: string;
  readonly hint?: string;
}

export interface CertificateCheck {
  /** The edge's HTTPS port on this machine (or the front door's port). */
  readonly port: number;
  /** A cluster's front door, dialled as it is; unset: the edge on this machine's engine. */
  readonly address?: string;
  /** Public mode: a certificate of Caddy's local CA does not count. */
  readonly public: boolean;
  /** How long to wait for one host, in ms: an ACME order takes seconds, the local CA milliseconds. */
  readonly timeoutMs: number;
  /** The edge's log since the deploy began, read once when a host has no certificate. */
  readonly edgeLog: () => Promise<string>;
  /** Where the one that serves the certificates tells more (a cluster's ingress controller); unset: the edge's log. */
  readonly logHint?: string;
}

const LOCAL_ISSUER = /Caddy Local Authority/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The certificate the edge (or a front door) serves for `host` (the TLS handshake with its SNI makes the edge get one on demand). */
async function servedCertificate(edgePort: number, host: string, address?: string): Promise<PeerCertificate | undefined> {
  // The edge's port on its engine's host; over SSH, a forward to the server's.
  const port = address ? edgePort : await engineLoopbackPort(edgePort);
  if (port === undefined) return undefined;
  return new Promise((resolve) => {
    const socket = connect({ host: address ?? "127.0.0.1", port, servername: host, rejectUnauthorized: false, timeout: 15_000 });
    const done = (c: PeerCertificate | undefined) => {
      socket.destroy();
      resolve(c);
    };
    socket.once("secureConnect", () => {
      const c = socket.getPeerCertificate();
      done(c && Object.keys(c).length > 0 ? c : undefined);
    });
    socket.once("timeout", () => done(undefined));
    socket.once("error", () => done(undefined));
  });
}

function issuerOf(c: PeerCertificate): string {
  return String(c.issuer?.O ?? c.issuer?.CN ?? "");
}

/** Caddy's own CA (the local edge's), named in the issuer's common name or organisation. */
function fromLocalCa(c: PeerCertificate): boolean {
  return LOCAL_ISSUER.test(`${c.issuer?.CN} ${c.issuer?.O}`);
}

/** A host's certificate as the edge serves it now, and where the host's DNS points (when it was checked). */
export interface ServedCertificate {
  readonly host: string;
  readonly dns?: DnsCheck;
  /** Absent when none is served, or when the public edge would have to order one (its DNS points elsewhere). */
  readonly cert?: { readonly issuer: string; readonly expires: string; readonly local: boolean };
}

/**
 * What the edge serves now for each host, without waiting: what `status` and `domains` show.
 * With `checkDns` (always on the public edge), a host whose DNS points elsewhere gets no
 * handshake: it would make the edge order a certificate the CA cannot validate (a failed order
 * each time, which a CA's rate limit counts, and a 15 s wait). `address`: a cluster's front door,
 * where the DNS must point and the handshake goes (else this machine's edge).
 */
export async function servedCertificates(
  hosts: readonly string[],
  o: { port: number; checkDns: boolean; address?: string },
): Promise<ServedCertificate[]> {
  const dns = o.checkDns ? await checkDns(hosts, process.env, o.address ? [o.address] : undefined) : undefined;
  return Promise.all(
    hosts.map(async (host, i) => {
      const d = dns?.[i];
      const c = !d || d.pointsHere ? await servedCertificate(o.port, host, o.address) : undefined;
      const cert = c ? { issuer: issuerOf(c), expires: new Date(c.valid_to).toISOString(), local: fromLocalCa(c) } : undefined;
      return { host, ...(d ? { dns: d } : {}), ...(cert ? { cert } : {}) };
    }),
  );
}

/** A certificate a visitor can use now: for this host, valid from a moment that has passed, and from the right CA. */
function usable(c: PeerCertificate, host: string, publicMode: boolean, now: number): boolean {
  const names = (c.subjectaltname ?? "").split(/,\s*/).map((n) => n.replace(/^DNS:/, ""));
  const parent = host.slice(host.indexOf(".") + 1);
  const covers = names.some((n) => n === host || n === `*.${parent}`);
  // A certificate valid from a later second than the client's clock fails with CERT_NOT_YET_VALID.
  const started = Date.parse(c.valid_from) <= now;
  return covers && started && !(publicMode && fromLocalCa(c));
}

/** The edge's error for a host, from its JSON log lines (Caddy's tls.obtain and tls.issuance loggers). */
function edgeError(log: string, host: string): string | undefined {
  const lines = log.split("\n").filter((l) => l.includes(`"${host}"`) && /"level":"error"/.test(l));
  const last = lines.at(-1);
  if (!last) return undefined;
  try {
    const entry = JSON.parse(last.slice(last.indexOf("{"))) as { error?: string; msg?: string };
    return entry.error ?? entry.msg;
  } catch {
    return last;
  }
}

const EDGE_LOG_HINT = "the edge's log says more: docker logs of the edge container (platform doctor names it)";

/** What to do about an issuance error, by the ACME problem it names. */
export function issuanceHint(error: string, host: string, logHint = EDGE_LOG_HINT): string {
  if (/NXDOMAIN|DNS problem|no valid A records|SERVFAIL|no such host/i.test(error)) {
    return `DNS: ${host} does not resolve to this server; create an A record for it (or a wildcard record for its apps domain) with this server's public address`;
  }
  if (/rateLimited|rate limit|too many/i.test(error)) {
    return "the CA's rate limit: wait before trying again, and use its staging directory (PLATFORM_ACME_CA) while testing";
  }
  if (/connection refused|timeout|connect:|fetching http|connection reset|unreachable/i.test(error)) {
    return "the CA could not reach this server on port 80: open ports 80 and 443 to the internet (a firewall or a cloud security group) and point the DNS record here";
  }
  if (/not allowed|permission|ask/i.test(error)) return "no running public service answers for this host: check platform status";
  return logHint;
}

/** One host: waits until the edge serves a usable certificate for it, or says why not. */
async function ensureOne(host: string, o: CertificateCheck): Promise<CertificateState> {
  const deadline = Date.now() + o.timeoutMs;
  for (;;) {
    const c = await servedCertificate(o.port, host, o.address);
    if (c && usable(c, host, o.public, Date.now()))
      return { host, ok: true, issuer: issuerOf(c), expires: new Date(c.valid_to).toISOString() };
    if (Date.now() > deadline) {
      const error =
        edgeError(await o.edgeLog().catch(() => ""), host) ??
        (c
          ? `the ${o.address ? "front door" : "edge"} serves a certificate of ${issuerOf(c) || c.subject?.CN || "an unnamed issuer"}, not one for ${host} from the ACME CA`
          : "no certificate was served");
      return { host, ok: false, error, hint: issuanceHint(error, host, o.logHint) };
    }
    await sleep(c ? 200 : 1000);
  }
}

/**
 * Makes the edge obtain each public host's certificate before the deploy prints its URL, so no
 * visitor waits for issuance or sees an error. Hosts are independent: one that fails (its DNS
 * points elsewhere) is reported, and the others keep their certificates and keep serving.
 */
export function ensureCertificates(hosts: readonly string[], o: CertificateCheck): Promise<CertificateState[]> {
  return Promise.all([...new Set(hosts)].map((h) => ensureOne(h, o)));
}
