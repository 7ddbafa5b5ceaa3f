import { EDGE_ALIAS_SUFFIX_TEXT as EDGE_ALIAS_SUFFIX, HTTP_PORT as SERVICE_PORT } from "../../plan/constants.js";

export { EDGE_CA_PATH, edgeContainer, edgeDataVolume } from "../../plan/constants.js";

/**
 * The edge proxy's one static configuration (Caddy >= 2.11: the platform-local/caddy image).
 * TLS comes from Caddy's local CA, issued on demand per host. A request for <label>.<apps_domain>
 * goes to the network alias "<label>.edge" on port 8080: only public services carry such an
 * alias, so private services stay unreachable, and no route is ever added by a reload.
 *
 * Zero failed requests across container swaps (test/integration/zero-downtime.test.ts):
 * - while a new container starts and an old one stops, the alias names both; a dial that is
 *   refused falls through to the other address, and a failed dial is retried;
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
 */
export const REPLAY_BODY_BYTES = "1MB";
const KEEPALIVE_IDLE = "3s";

export function buildEdgeCaddyfile(appsDomain: string): string {
  const hostLabel = appsDomain.split(".").length; // labels count from the right: 0 is the TLD
  return `{
	admin unix//run/caddy-admin.sock
	auto_https disable_redirects
	local_certs
	skip_install_trust
}

*.${appsDomain}:443 {
	tls internal {
		on_demand
	}
	reverse_proxy {http.request.host.labels.${hostLabel}}${EDGE_ALIAS_SUFFIX}:${SERVICE_PORT} {
		lb_try_duration 5s
		lb_try_interval 50ms
		lb_retry_match {
			method GET HEAD OPTIONS POST PUT PATCH DELETE
		}
		request_buffers ${REPLAY_BODY_BYTES}
		transport http {
			dial_timeout 2s
			keepalive ${KEEPALIVE_IDLE}
		}
	}
	handle_errors {
		respond "{http.error.status_code} {http.error.status_text}: no running public service answers at {http.request.host}" {http.error.status_code}
	}
}
`;
}
