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
 * - no keep-alive to upstreams: a dial per request. Pooling made the edge cheaper (bench/edge: p50
 *   added 0.66 ms against 2.3 ms), but Node's HTTP server (Next.js) keeps serving, with
 *   "Connection: keep-alive", on a connection that stays busy after server.close(): under
 *   steady load a stopping Next.js never finishes its drain, and SIGKILL at the end of the grace
 *   period cuts the responses it is streaming (measured: 6 GET / cut at one instant in a web
 *   swap). A fresh dial to a stopping container is refused instead, and falls through to the
 *   new one.
 */
export const REPLAY_BODY_BYTES = "1MB";

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
			keepalive off
		}
	}
	handle_errors {
		respond "{http.error.status_code} {http.error.status_text}: no running public service answers at {http.request.host}" {http.error.status_code}
	}
}
`;
}
