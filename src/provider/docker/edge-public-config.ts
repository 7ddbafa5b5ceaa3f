import { ALLOWED_DIR } from "./edge-allow.js";
import { EDGE_PROTOCOLS, hostLabelPlaceholder, proxyTo, SHUTDOWN_DELAY } from "./edge-config.js";
import { edgeLoopback } from "./edge-resolver.js";

/** Where the public edge gets its certificates: an ACME directory (Let's Encrypt by default). */
export interface AcmeSettings {
  /** The directory URL. */
  readonly ca: string;
  /** The account's e-mail: the CA writes there about expiring certificates and incidents. */
  readonly email: string;
  /** A PEM bundle that signs the directory's own TLS (a staging or company CA, or Pebble in tests). */
  readonly caRoot?: string;
}

/** Inside the edge container: the CA root written from the environment at start. */
export const ACME_ROOT_PATH = "/tmp/acme-ca-root.pem";
/** The on-demand guard: on the edge's own loopback address of the host (edge-resolver.ts), not public. */
const askAddress = () => `${edgeLoopback()}:2019`;
/**
 * Every interface (the empty host: IPv4 and IPv6 where the host has it), and 127.0.0.1 on its
 * own socket as well: the kernel gives a loopback connection to the socket bound to 127.0.0.1
 * before the wildcard one, so a local edge (127.0.0.1 only) and a public one replacing it, or
 * the other way round, share that socket's SO_REUSEPORT group during the hand-over. Without it
 * every new loopback connection went to the old local edge until it closed its socket, and the
 * connections still in its accept queue then were reset (HTTP/1.1 "socket hang up").
 */
export const PUBLIC_BIND = '127.0.0.1 ""';
/** HSTS: a year; browsers then never try plain HTTP for the host again. */
const HSTS = 'header Strict-Transport-Security "max-age=31536000"';
/** Request bodies over this are refused with 413 (uploads bigger than this belong in object storage). */
export const MAX_REQUEST_BODY = "100MB";

/** A regular expression that matches the apps domain's text exactly (its dots are literal). */
function escapeDomain(domain: string): string {
  return domain.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&");
}

/**
 * The public edge (Caddy >= 2.11): listens on every interface of the host, on ports 80 and 443
 * (or the ports of choice), certificates from ACME.
 *
 * - Certificates are obtained on demand, per host, on the first TLS handshake for it: the deploy
 *   makes that handshake itself before it prints a URL (engine/certificates.ts), so no visitor
 *   waits for issuance. On-demand issuance is guarded (`ask`): the edge asks itself whether the
 *   host is one of the public services' hosts on this engine, from an allow-list of files the
 *   provider keeps in the edge's volume (edge-allow.ts). A stranger's SNI is not in it: no
 *   certificate is requested, and no name is looked up (dialling the host's alias instead made
 *   Docker's DNS forward a stranger's name to the machine's resolver).
 * - Hosts under the apps domain route by their first label to "<label>.edge" (as in local mode);
 *   any other host is a custom domain, routed to the alias "<host>.edge" that only the service
 *   that claims that domain carries. So new routes and domains never change this configuration.
 * - Plain HTTP redirects to HTTPS; ACME's HTTP-01 challenges are answered before any route.
 * - HSTS is on. Slow clients cannot hold connections forever: headers must arrive within 10 s,
 *   a body may take 60 s, an idle kept connection is closed after 2 min.
 */
export function buildPublicEdgeCaddyfile(
  appsDomain: string,
  acme: AcmeSettings,
  httpsPort = 443,
  httpPort = 80,
  listenHttpsPort = httpsPort,
): string {
  const root = acme.caRoot ? `\n\tacme_ca_root ${ACME_ROOT_PATH}` : "";
  // Caddy's {host} has no port: a redirect to another HTTPS port than 443 names it.
  const port = httpsPort === 443 ? "" : `:${httpsPort}`;
  return `{
\tadmin unix//run/caddy-admin.sock
\tauto_https disable_redirects
\tshutdown_delay ${SHUTDOWN_DELAY}
\tdefault_bind ${PUBLIC_BIND}
\thttp_port ${httpPort}
\thttps_port ${listenHttpsPort}
\temail ${acme.email}
\tacme_ca ${acme.ca}${root}
\ton_demand_tls {
\t\task http://${askAddress()}/allowed
\t}
\tservers {
\t\t${EDGE_PROTOCOLS}
\t\ttimeouts {
\t\t\tread_header 10s
\t\t\tread_body 60s
\t\t\tidle 2m
\t\t}
\t}
}

# The on-demand guard: 200 when {query.domain} is a host of a public service on this engine (a
# file in the allow-list the provider keeps, edge-allow.ts), else 403. It looks up no name.
http://${askAddress()} {
	bind ${edgeLoopback()}
	map {query.domain} {platform_host} {
		~^([a-z0-9-]+)\\.${escapeDomain(appsDomain)}$ "\${1}"
		default {query.domain}
	}
	@allowed {
		expression {query.domain}.matches('^[a-z0-9-]+[.][a-z0-9.-]+$')
		file {
			root ${ALLOWED_DIR}
			try_files {platform_host}
		}
	}
	respond @allowed 200
	respond 403
}

http:// {
	redir https://{host}${port}{uri} 308
}

${publicSite(`*.${appsDomain}`, hostLabelPlaceholder(appsDomain))}

${publicSite("https://", "{http.request.host}")}
`;
}

/** A public site: on-demand certificates, HSTS, the body limit, and the proxy to `upstream`'s alias. */
function publicSite(address: string, upstream: string): string {
  return `${address} {
\ttls {
\t\ton_demand
\t}
\t${HSTS}
\trequest_body {
\t\tmax_size ${MAX_REQUEST_BODY}
\t}
${proxyTo(upstream)}
}`;
}
