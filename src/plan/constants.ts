/** Every HTTP service listens on $PORT, which the platform sets to this. */
export const HTTP_PORT = 8080;
export const POSTGRES_PORT = 5432;
/** Suffix of the network alias that the edge proxy dials (see targets/docker/edge-config.ts). */
export const EDGE_ALIAS_SUFFIX_TEXT = ".edge";
export const DEFAULT_APPS_DOMAIN = "localhost";
export const DEFAULT_HTTPS_PORT = 443;
export const DEFAULT_HEALTH_TIMEOUT_SECONDS = 120;
/** The one shared edge proxy on a Docker engine, its data volume, and where its local CA root lives. */
export const EDGE_CONTAINER = "platform-edge";
export const EDGE_DATA_VOLUME = "platform-edge-data";
export const EDGE_CA_PATH = "/data/caddy/pki/authorities/local/root.crt";
