import { createHash } from "node:crypto";
import type Docker from "dockerode";
import { docker, logTail } from "../../docker-client.js";
import { edgeDataVolume } from "./edge-config.js";
import { ACME_ROOT_PATH } from "./edge-public-config.js";
import { edgeResolvConf } from "./edge-resolver.js";
import type { EdgeInputs } from "../contract/docker-inputs.js";

export type { EdgeInputs };

/**
 * How the edge holds the host's ports. "host": in the host's network namespace, binding them
 * itself (Caddy sets SO_REUSEPORT), so a new edge starts beside the old one (edge.ts). That needs
 * an engine whose host network is the machine's: on Docker Desktop (a VM) and rootless Docker (a
 * namespace of its own) the edge is "published" through Docker as before, and a switch of mode
 * or an edge upgrade there leaves about a second without a listener. PLATFORM_EDGE_NETWORK
 * (host or published) decides instead of the engine's facts.
 */
export type EdgeNetworking = "host" | "published";

let networking: Promise<EdgeNetworking> | undefined;
export function edgeNetworking(): Promise<EdgeNetworking> {
  const forced = process.env.PLATFORM_EDGE_NETWORK;
  if (forced === "host" || forced === "published") return Promise.resolve(forced);
  networking ??= docker()
    .info()
    .then((i: { OperatingSystem?: string; SecurityOptions?: string[] }) =>
      /Docker Desktop/i.test(i.OperatingSystem ?? "") || (i.SecurityOptions ?? []).some((o) => o.includes("rootless"))
        ? "published"
        : "host",
    );
  return networking;
}

/** Where the edge listens on the host: 443 on 127.0.0.1 (local), or 80 and 443 on every interface (public). */
export function listens(e: EdgeInputs): string[] {
  if (e.mode !== "public") return [`127.0.0.1:${e.httpsPort}`];
  return [`*:${e.httpPort ?? 80}`, `*:${e.httpsPort}`];
}

/** The host ports a published edge asks Docker for (its Caddy listens on 80 and 443 inside its container). */
function portBindings(e: EdgeInputs): Record<string, { HostIp: string; HostPort: string }[]> {
  if (e.mode !== "public") return { "443/tcp": [{ HostIp: "127.0.0.1", HostPort: String(e.httpsPort) }] };
  return { "80/tcp": [{ HostIp: "", HostPort: String(e.httpPort ?? 80) }], "443/tcp": [{ HostIp: "", HostPort: String(e.httpsPort) }] };
}

/**
 * What makes an edge: its networking, its image (the image's ID, not only its tag: a set-up that
 * rebuilds Caddy under the same tag, as an upgrade of the platform does, replaces the edge), its
 * listeners and its configuration.
 */
export async function configHash(e: EdgeInputs, caddyfile: string, how: EdgeNetworking): Promise<string> {
  const imageId = await docker()
    .getImage(e.image)
    .inspect()
    .then((i) => i.Id)
    .catch(() => e.image);
  return createHash("sha256")
    .update(`${how}\n${imageId}\n${listens(e).join(",")}\n${caddyfile}\n${e.acmeCaRoot ?? ""}`)
    .digest("hex")
    .slice(0, 16);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until Caddy serves its configuration (its listeners are bound: it logs "serving initial
 * configuration"), or fails with its last lines when it stopped (a port it could not bind).
 */
async function waitServing(c: Docker.Container, seconds: number): Promise<void> {
  for (const end = Date.now() + seconds * 1000; Date.now() < end; await sleep(100)) {
    const log = await logTail(c.id, 200);
    if (log.includes("serving initial configuration")) return;
    const state = (await c.inspect()).State;
    if (!state.Running || state.Restarting)
      throw new Error(`the edge proxy stopped at start (exit ${state.ExitCode}):\n${log.slice(-2000)}`);
  }
  throw new Error(`the edge proxy did not serve within ${seconds} s:\n${(await logTail(c.id)).slice(-2000)}`);
}

/**
 * Creates and starts an edge container, in the host's network or published (then attached to
 * `networks` itself); a failed start leaves nothing behind. (bench/edge starts one too.)
 */
export async function startEdge(
  name: string,
  e: EdgeInputs,
  hash: string,
  caddyfile: string,
  how: EdgeNetworking = "host",
  networks: string[] = [],
): Promise<Docker.Container> {
  const c = await docker().createContainer({
    name,
    Image: e.image,
    Env: edgeEnv(e, caddyfile, how),
    Entrypoint: ["sh", "-c", `${WRITE_CONFIG} && exec caddy run --adapter caddyfile --config /tmp/Caddyfile`],
    Labels: {
      "platform.managed": "true",
      "platform.edge-config": hash,
      "platform.edge-domain": e.appsDomain,
      "platform.edge-mode": e.mode ?? "local",
      "platform.edge-listens": listens(e).join(","),
      "platform.edge-https-port": String(e.httpsPort),
      ...(e.mode === "public"
        ? {
            "platform.edge-http-port": String(e.httpPort ?? 80),
            "platform.edge-acme-ca": String(e.acmeCa),
            "platform.edge-acme-email": String(e.acmeEmail),
          }
        : {}),
    },
    ...(how === "published" ? { ExposedPorts: Object.fromEntries(Object.keys(portBindings(e)).map((p) => [p, {}])) } : {}),
    HostConfig: {
      ...(how === "host" ? { NetworkMode: "host" } : { PortBindings: portBindings(e) }),
      Mounts: [{ Type: "volume", Source: edgeDataVolume(), Target: "/data" }],
      RestartPolicy: { Name: "unless-stopped" },
      SecurityOpt: ["no-new-privileges:true"],
      LogConfig: { Type: "json-file", Config: { "max-size": "10m", "max-file": "3" } },
    },
  });
  try {
    for (const n of networks)
      await docker()
        .getNetwork(n)
        .connect({ Container: c.id })
        .catch(() => undefined);
    await c.start();
    await waitServing(c, 30);
  } catch (err) {
    await c.remove({ force: true, v: true }).catch(() => undefined);
    throw portInUse(e, err as Error) ?? err;
  }
  return c;
}

/** A port taken by something else, said with what to do; undefined for any other failure. */
function portInUse(e: EdgeInputs, err: Error): Error | undefined {
  if (!/address already in use|port is already allocated/i.test(err.message)) return undefined;
  if (e.mode === "public")
    return new Error(
      `the public edge cannot listen on ports ${e.httpPort ?? 80} and ${e.httpsPort} of every interface: something else uses one of them (another web server, or a second edge). Stop it, or choose others with PLATFORM_HTTP_PORT and PLATFORM_HTTPS_PORT (a CA validates on port 80: forward 80 to the one you choose)`,
    );
  return new Error(
    `the HTTPS edge cannot listen on 127.0.0.1:${e.httpsPort}: something else uses that port. Stop it, or deploy with --https-port 8443 (or PLATFORM_HTTPS_PORT=8443)`,
  );
}

/**
 * The configuration, the resolver in the host's network (resolv.conf: the container's own copy,
 * not the host's), and the ACME directory's CA root when there is one, written from the
 * environment at start.
 */
const WRITE_CONFIG = `printf "%s" "$PLATFORM_CADDYFILE" > /tmp/Caddyfile && if [ -n "$PLATFORM_RESOLV_CONF" ]; then printf "%s" "$PLATFORM_RESOLV_CONF" > /etc/resolv.conf; fi && if [ -n "$PLATFORM_ACME_ROOT" ]; then printf "%s" "$PLATFORM_ACME_ROOT" > ${ACME_ROOT_PATH}; fi`;

/**
 * Go's collector runs when the heap has grown by GOGC % since the last one: the edge allocates
 * per request and keeps little, so at Go's default (100) it collected every few hundred requests
 * under load (about 5 % of its CPU, and the allocations it slowed). 400 collects a quarter as
 * often; the heap may grow to five times what is live (bench/edge: peak RSS).
 */
const EDGE_GOGC = 400;

export function edgeEnv(e: EdgeInputs, caddyfile: string, how: EdgeNetworking = "host"): string[] {
  return [
    `GOGC=${EDGE_GOGC}`,
    `PLATFORM_CADDYFILE=${caddyfile}`,
    ...(how === "host" ? [`PLATFORM_RESOLV_CONF=${edgeResolvConf()}`] : []),
    ...(e.mode === "public" && e.acmeCaRoot ? [`PLATFORM_ACME_ROOT=${e.acmeCaRoot}`] : []),
  ];
}

/** The validation's entrypoint: the same files written, then `caddy validate`. */
export const VALIDATE_COMMAND = ["sh", "-c", `${WRITE_CONFIG} && caddy validate --adapter caddyfile --config /tmp/Caddyfile`];
