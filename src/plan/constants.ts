/** Every HTTP service listens on $PORT, which the platform sets to this. */
export const HTTP_PORT = 8080;
export const POSTGRES_PORT = 5432;
export const REDIS_PORT = 6379;
/** Suffix of the network alias that the edge proxy dials (see provider/docker/edge-config.ts). */
export const EDGE_ALIAS_SUFFIX_TEXT = ".edge";
export const DEFAULT_APPS_DOMAIN = "localhost";
export const DEFAULT_HTTPS_PORT = 443;
/** The public edge's default ACME directory. */
export const LETS_ENCRYPT_DIRECTORY = "https://acme-v02.api.letsencrypt.org/directory";
export const DEFAULT_HEALTH_TIMEOUT_SECONDS = 120;
/**
 * The one shared edge proxy on a Docker engine and its data volume (its local CA). PLATFORM_EDGE_NAME
 * names a second, separate edge (another port, its own CA): tests that change the edge's image
 * or configuration use one, so that they never move the edge every other deploy on the engine uses.
 */
export const edgeContainer = (): string => process.env.PLATFORM_EDGE_NAME || "platform-edge";
export const edgeDataVolume = (): string => `${edgeContainer()}-data`;
export const EDGE_CA_PATH = "/data/caddy/pki/authorities/local/root.crt";
/**
 * The managed Postgres's TLS files inside containers: the server's certificate and key (the
 * database's), and the stack's CA that the services referencing a database trust.
 */
export const DATABASE_TLS_DIR = "/etc/platform/tls";
export const DATABASE_CA_FILE = `${DATABASE_TLS_DIR}/ca.crt`;
export const DATABASE_CERT_FILE = `${DATABASE_TLS_DIR}/server.crt`;
export const DATABASE_KEY_FILE = `${DATABASE_TLS_DIR}/server.key`;

/**
 * The stack output of a Kubernetes stack with a front door: the address the cluster's ingress
 * controller serves public hosts at (an IP or a host name), where their DNS records point and
 * where the deploy checks their certificates.
 */
export const FRONT_DOOR_OUTPUT = "front_door_address";

/**
 * The telemetry receiver a Kubernetes stack runs in its namespace: its Deployment and Service
 * name, and the `platform.role` label that tells its objects from the services' (status and
 * Studio list services, never it).
 */
export const TELEMETRY_SERVICE = "platform-telemetry";
export const TELEMETRY_ROLE = "telemetry";
