import { EDGE_ALIAS_SUFFIX_TEXT as EDGE_ALIAS_SUFFIX, HTTP_PORT as SERVICE_PORT } from "../../plan/constants.js";
import { hostLabelPlaceholder, proxyTo } from "./edge-config.js";

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
/** The on-demand guard, reachable only inside the edge container. */
const ASK_ADDRESS = "127.0.0.1:2019";
/** HSTS: a year; browsers then never try plain HTTP for the host again. */
const HSTS = 'header Strict-Transport-Security "max-age=31536000"';
/** Request bodies over this are refused with 413 (uploads bigger than this belong in object storage). */
export const MAX_REQUEST_BODY = "100MB";

/** A regular expression that matches the apps domain's text exactly (its dots are literal). */
function escapeDomain(domain: string): string {
  return domain.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&");
}

/**
 * The public edge (Caddy >= 2.11): listens on every interface, ports 80 and 443 inside the
 * container (published on the host's ports of choice), certificates from ACME.
 *
 * - Certificates are obtained on demand, per host, on the first TLS handshake for it: the deploy
 *   makes that handshake itself before it prints a URL (engine/certificates.ts), so no visitor
 *   waits for issuance. On-demand issuance is guarded (`ask`): the edge asks itself whether a
 *   running public service answers for the host, by dialling the network alias that the host
 *   routes to. A stranger's SNI names no alias, the dial fails, and no certificate is requested.
 * - Hosts under the apps domain route by their first label to "<label>.edge" (as in local mode);
 *   any other host is a custom domain, routed to the alias "<host>.edge" that only the service
 *   that claims that domain carries. So new routes and domains never change this configuration.
 * - Plain HTTP redirects to HTTPS; ACME's HTTP-01 challenges are answered before any route.
 * - HSTS is on. Slow clients cannot hold connections forever: headers must arrive within 10 s,
 *   a body may take 60 s, an idle kept connection is closed after 2 min.
 */
export function buildPublicEdgeCaddyfile(appsDomain: string, acme: AcmeSettings): string {
  const root = acme.caRoot ? `\n\tacme_ca_root ${ACME_ROOT_PATH}` : "";
  return `{
\tadmin unix//run/caddy-admin.sock
\tauto_https disable_redirects
\temail ${acme.email}
\tacme_ca ${acme.ca}${root}
\ton_demand_tls {
\t\task http://${ASK_ADDRESS}/allowed
\t}
\tservers {
\t\ttimeouts {
\t\t\tread_header 10s
\t\t\tread_body 60s
\t\t\tidle 2m
\t\t}
\t}
}

# The on-demand guard: 200 when a running public service answers for {query.domain}, else 502.
http://${ASK_ADDRESS} {
\tbind 127.0.0.1
\tmap {query.domain} {platform_route} {
\t\t~^([a-z0-9-]+)\\.${escapeDomain(appsDomain)}$ "\${1}"
\t\tdefault {query.domain}
\t}
\treverse_proxy {platform_route}${EDGE_ALIAS_SUFFIX}:${SERVICE_PORT} {
\t\tmethod HEAD
\t\ttransport http {
\t\t\tdial_timeout 2s
\t\t}
\t\t@answered status 1xx 2xx 3xx 4xx 5xx
\t\thandle_response @answered {
\t\t\trespond 200
\t\t}
\t}
}

http:// {
\tredir https://{host}{uri} 308
}

*.${appsDomain} {
\ttls {
\t\ton_demand
\t}
\t${HSTS}
\trequest_body {
\t\tmax_size ${MAX_REQUEST_BODY}
\t}
${proxyTo(hostLabelPlaceholder(appsDomain))}
}

https:// {
\ttls {
\t\ton_demand
\t}
\t${HSTS}
\trequest_body {
\t\tmax_size ${MAX_REQUEST_BODY}
\t}
${proxyTo("{http.request.host}")}
}
`;
}
