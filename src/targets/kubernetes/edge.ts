import { HTTP_PORT } from "../../plan/constants.js";

/**
 * The forwarder's Caddy configuration: plain HTTP on the port the edge dials, to the Service's
 * ClusterIP. A new connection per request (keepalive off), so kube-proxy picks a ready pod for
 * each one: a pooled connection would stay on a pod being stopped by a rollout. A failed dial
 * (a Service briefly without endpoints) is retried for a few seconds.
 */
export function buildForwarderCaddyfile(clusterIp: string, port: number): string {
  return `{
	admin off
	auto_https off
}

:${HTTP_PORT} {
	reverse_proxy ${clusterIp}:${port} {
		lb_try_duration 5s
		lb_try_interval 100ms
		transport http {
			dial_timeout 2s
			keepalive off
		}
	}
}
`;
}

/** The caddy image's shell writes the configuration from the environment, then Caddy replaces it. */
export const FORWARDER_COMMAND = [
  "sh",
  "-c",
  'printf "%s" "$CADDYFILE" > /tmp/Caddyfile && exec caddy run --adapter caddyfile --config /tmp/Caddyfile',
];
