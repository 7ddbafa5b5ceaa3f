import { EDGE_ALIAS_SUFFIX_TEXT as EDGE_ALIAS_SUFFIX, HTTP_PORT as SERVICE_PORT } from "../../plan/constants.js";

export { EDGE_CA_PATH, EDGE_CONTAINER, EDGE_DATA_VOLUME } from "../../plan/constants.js";

/**
 * The edge proxy's one static configuration. TLS comes from Caddy's local CA, issued on demand
 * per host. A request for <label>.<apps_domain> goes to the network alias "<label>.edge" on
 * port 8080: only public services carry such an alias, so private services stay unreachable,
 * and no route is ever added by a reload. No keep-alive to upstreams: a pooled connection to a
 * container being stopped is a request lost mid-swap, while a fresh dial to it fails as a dial
 * error, which Caddy retries on the other container (measured: 1 failed POST in 3 swaps under
 * ~300 req/s with keep-alive, 1 in 9 without).
 */

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
		lb_try_interval 100ms
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
