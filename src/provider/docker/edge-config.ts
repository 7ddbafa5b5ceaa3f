import { EDGE_ALIAS_SUFFIX_TEXT as EDGE_ALIAS_SUFFIX, HTTP_PORT as SERVICE_PORT } from "../../plan/constants.js";

export { EDGE_CA_PATH, edgeContainer, edgeDataVolume } from "../../plan/constants.js";

/**
 * The edge proxy's one static configuration (Caddy >= 2.11: the platform-local/caddy image).
 * TLS comes from Caddy's local CA, issued on demand per host. A request for <label>.<apps_domain>
 * goes to the network alias "<label>.edge" on port 8080: only public services carry such an
 * alias, so private services stay unreachable, and no route is ever added by a reload.
 *
 * Each of the alias's addresses is an upstream of its own (`dynamic a`: looked up again every
 * DNS_REFRESH), so the copies of a service (`replicas:`) share its requests, the least busy
 * first; one name would have dialled the first address only, and kept connections to it.
 *
 * Zero failed requests across container swaps (test/integration/zero-downtime.test.ts):
 * - while a new container starts and an old one stops, the alias names both; a dial that is
 *   refused is retried on an address of the alias (looked up again within DNS_REFRESH);
 * - a container told to stop closes connections it accepted but had not read yet, so a request
 *   can fail after its dial succeeded. Such a request never reached the app, and it is
 *   retried on any method: bodies up to REPLAY_BODY_BYTES are buffered so that they can be
 *   sent again (bigger ones stream, and are retried only when the failure was a dial error).
 *   A request that an app received and then died on without answering is retried too: a
 *   POST handler that must not run twice should be idempotent (an idempotency key).
 * - upstream connections are kept open (keep-alive, closed after KEEPALIVE_IDLE idle, under the
 *   5 s after which uvicorn and Node close theirs). A dial per request cost 1.6 ms more of the
 *   2.3 ms the edge added at p50 (bench/edge). A stopping container must then end the kept
 *   connections itself: uvicorn does (its responses after SIGTERM close the connection), and
 *   the platform's Node images load platform-drain.cjs (src/plan/recipes/node-drain.ts),
 *   because Node's own server keeps answering with "Connection: keep-alive" on a busy
 *   connection after server.close(): a stopping Next.js never finished under steady load, and
 *   SIGKILL cut the responses it was streaming (6 GET / cut at one instant in a web swap).
 *   A kept connection that a stopping container closes as the edge sends on it fails before
 *   the app reads anything: retried, as above.
 * - up to KEEPALIVE_IDLE_PER_HOST idle connections are kept per upstream: Caddy's default of 32
 *   closed every connection beyond 32 as it went idle, so at 64 concurrent requests one in four
 *   dialled (a DNS lookup through the resolver and a TCP connect): half the throughput, 187
 *   instead of 155 µs of the edge's CPU per request (bench/edge, issue 29). Traefik keeps 200.
 */
export const REPLAY_BODY_BYTES = "1MB";
const KEEPALIVE_IDLE = "3s";
const DNS_REFRESH = "1s";
/**
 * An address whose dial or connection failed is skipped for this long (Caddy's passive health
 * check): a container that stopped leaves the alias at once, but the edge's lookup is up to
 * DNS_REFRESH old, and the least busy address is the dead one (nothing runs on it). Retries go
 * to the others; a single copy is tried again after it (lb_try_duration is longer).
 */
const FAIL_MEMORY = "1s";
/** A dial on the host's own bridge answers in well under a millisecond; a gone address never does. */
const DIAL_TIMEOUT = "1s";
const KEEPALIVE_IDLE_PER_HOST = 128;

/**
 * A stopping edge (replaced by a new one on the same port: edge.ts) serves on for SHUTDOWN_DELAY
 * and answers HTTP/1.1 requests with `Connection: close` meanwhile, so that clients leave their
 * kept connections after their current request: closing an idle kept connection at the moment a
 * client sends on it was a failed request ("socket hang up") for clients that do not retry.
 * HTTP/2 sessions get a graceful GOAWAY at the shutdown, in two steps: the edge's Caddy is built
 * with a patch to Go's HTTP/2 server (scripts/setup/go/caddy/patches.txt) that first announces
 * the shutdown with the largest stream ID and a PING, and names the last stream only once the
 * client has answered (and half a second more); Go's single GOAWAY refused the streams a client
 * had already sent, 10 to 20 per switch under load. (`Connection: close` would mean a GOAWAY
 * per response there.)
 */
export const SHUTDOWN_DELAY = "1s";

/** How the edge reaches a public service: each of its copies, with retries across a container swap, kept connections. */
export function proxyTo(upstream: string, indent = "\t"): string {
  const i = indent;
  return `${i}@stopping {
${i}\tvars {http.shutting_down} true
${i}\tnot protocol http/2+
${i}}
${i}header @stopping {
${i}\tConnection close
${i}\tdefer
${i}}
${i}reverse_proxy {
${i}\tdynamic a {
${i}\t\tname ${upstream}${EDGE_ALIAS_SUFFIX}
${i}\t\tport ${SERVICE_PORT}
${i}\t\trefresh ${DNS_REFRESH}
${i}\t\tversions ipv4
${i}\t}
${i}\tlb_policy least_conn
${i}\tfail_duration ${FAIL_MEMORY}
${i}\tlb_try_duration 5s
${i}\tlb_try_interval 50ms
${i}\tlb_retry_match {
${i}\t\tmethod GET HEAD OPTIONS POST PUT PATCH DELETE
${i}\t}
${i}\trequest_buffers ${REPLAY_BODY_BYTES}
${i}\ttransport http {
${i}\t\tdial_timeout ${DIAL_TIMEOUT}
${i}\t\tkeepalive ${KEEPALIVE_IDLE}
${i}\t\tkeepalive_idle_conns_per_host ${KEEPALIVE_IDLE_PER_HOST}
${i}\t}
${i}}
${i}handle_errors {
${i}\trespond "{http.error.status_code} {http.error.status_text}: no running public service answers at {http.request.host}" {http.error.status_code}
${i}}`;
}

/** The label of a host under the apps domain that names its service (labels count from the right: 0 is the TLD). */
export function hostLabelPlaceholder(appsDomain: string): string {
  return `{http.request.host.labels.${appsDomain.split(".").length}}`;
}

/**
 * HTTP/1.1 and HTTP/2 only, as when the edge was published through Docker (UDP 443 was never
 * published): HTTP/3 would open the host's UDP port and advertise it.
 */
export const EDGE_PROTOCOLS = "protocols h1 h2";

/**
 * The local edge: 127.0.0.1 only (it runs in the host's network namespace and binds the port
 * itself: edge.ts; a published edge listens on its container's 443, published on 127.0.0.1),
 * certificates from Caddy's own CA.
 */
export function buildEdgeCaddyfile(appsDomain: string, httpsPort = 443, loopbackOnly = true): string {
  return `{
\tadmin unix//run/caddy-admin.sock
\tauto_https disable_redirects
\tlocal_certs
\tskip_install_trust
\tshutdown_delay ${SHUTDOWN_DELAY}${loopbackOnly ? "\n\tdefault_bind 127.0.0.1" : ""}
\tservers {
\t\t${EDGE_PROTOCOLS}
\t}
}

*.${appsDomain}:${httpsPort} {
\ttls internal {
\t\ton_demand
\t}
${proxyTo(hostLabelPlaceholder(appsDomain))}
}
`;
}
