import { createHash } from "node:crypto";
import type Docker from "dockerode";
import { buildAttachmentMethods } from "./attachment.js";
import { docker, logTail, unlessGone } from "../../docker-client.js";
import { withEdgeLock } from "./edge-lock.js";
import type { ResourceHandler } from "../handler.js";
import { buildEdgeCaddyfile, edgeContainer, edgeDataVolume } from "./edge-config.js";
import { syncEdgeAllowList } from "./edge-allow.js";
import { ACME_ROOT_PATH, buildPublicEdgeCaddyfile } from "./edge-public-config.js";
import { edgeResolvConf, edgeResolverContainer, ensureResolver, resolverNetworks } from "./edge-resolver.js";

/**
 * platform:docker:EdgeAttachment: makes sure the one shared edge proxy runs, and joins its name
 * resolver to an application's network. The edge's configuration never changes when services
 * come and go (a Caddy reload drops in-flight requests): it routes by host name to a network
 * alias, so attaching a network is all a new route needs.
 *
 * The edge runs in the host's network namespace and binds the host's ports itself (Caddy sets
 * SO_REUSEPORT on Linux): a new edge, of another mode, image or configuration, starts beside the
 * running one on the same ports, and the old one stops gracefully only once the new one serves.
 * So a switch between local and public mode, or an upgrade, leaves no moment when nothing
 * listens (Docker's published ports could not: 127.0.0.1:443 and *:443 cannot be held at once).
 * It also spares every request the trip through docker-proxy. The aliases it dials are resolved
 * by its resolver container, which sits on the application networks (edge-resolver.ts).
 */
export interface EdgeInputs {
  network: string;
  image: string;
  httpsPort: number;
  appsDomain: string;
  /** Set for the public edge (every interface, ACME); absent for the local one (127.0.0.1, its own CA). */
  mode?: "public";
  /** The public edge's host port for plain HTTP. */
  httpPort?: number;
  acmeCa?: string;
  acmeEmail?: string;
  /** PEM text of a CA that signs the ACME directory's TLS. */
  acmeCaRoot?: string;
}

const PUBLIC_KEYS = ["mode", "httpPort", "acmeCa", "acmeEmail", "acmeCaRoot"] as const;

/** The edge's Caddyfile for its mode. */
function edgeCaddyfile(e: EdgeInputs): string {
  if (e.mode !== "public") return buildEdgeCaddyfile(e.appsDomain, e.httpsPort);
  return buildPublicEdgeCaddyfile(
    e.appsDomain,
    { ca: String(e.acmeCa), email: String(e.acmeEmail), ...(e.acmeCaRoot ? { caRoot: e.acmeCaRoot } : {}) },
    e.httpsPort,
    e.httpPort ?? 80,
  );
}

/** Where the edge listens on the host: 443 on 127.0.0.1 (local), or 80 and 443 on every interface (public). */
function listens(e: EdgeInputs): string[] {
  if (e.mode !== "public") return [`127.0.0.1:${e.httpsPort}`];
  return [`*:${e.httpPort ?? 80}`, `*:${e.httpsPort}`];
}

function configHash(e: EdgeInputs, caddyfile: string): string {
  return createHash("sha256")
    .update(`host-network\n${e.image}\n${listens(e).join(",")}\n${caddyfile}\n${e.acmeCaRoot ?? ""}`)
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

/** Creates and starts an edge container in the host's network; a failed start leaves nothing behind. (bench/edge starts one too.) */
export async function startEdge(name: string, e: EdgeInputs, hash: string, caddyfile: string): Promise<Docker.Container> {
  const c = await docker().createContainer({
    name,
    Image: e.image,
    Env: edgeEnv(e, caddyfile),
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
    HostConfig: {
      NetworkMode: "host",
      Mounts: [{ Type: "volume", Source: edgeDataVolume(), Target: "/data" }],
      RestartPolicy: { Name: "unless-stopped" },
      SecurityOpt: ["no-new-privileges:true"],
      LogConfig: { Type: "json-file", Config: { "max-size": "10m", "max-file": "3" } },
    },
  });
  try {
    await c.start();
    await waitServing(c, 30);
  } catch (err) {
    await c.remove({ force: true, v: true }).catch(() => undefined);
    if (/address already in use|port is already allocated/i.test((err as Error).message)) {
      if (e.mode === "public") {
        throw new Error(
          `the public edge cannot listen on ports ${e.httpPort ?? 80} and ${e.httpsPort} of every interface: something else uses one of them (another web server, or a second edge). Stop it, or choose others with PLATFORM_HTTP_PORT and PLATFORM_HTTPS_PORT (a CA validates on port 80: forward 80 to the one you choose)`,
        );
      }
      throw new Error(
        `the HTTPS edge cannot listen on 127.0.0.1:${e.httpsPort}: something else uses that port. Stop it, or deploy with --https-port 8443 (or PLATFORM_HTTPS_PORT=8443)`,
      );
    }
    throw err;
  }
  return c;
}

/**
 * The configuration, the resolver (resolv.conf: the container's own copy, not the host's), and
 * the ACME directory's CA root when there is one, written from the environment at start.
 */
const WRITE_CONFIG = `printf "%s" "$PLATFORM_CADDYFILE" > /tmp/Caddyfile && printf "%s" "$PLATFORM_RESOLV_CONF" > /etc/resolv.conf && if [ -n "$PLATFORM_ACME_ROOT" ]; then printf "%s" "$PLATFORM_ACME_ROOT" > ${ACME_ROOT_PATH}; fi`;

function edgeEnv(e: EdgeInputs, caddyfile: string): string[] {
  return [
    `PLATFORM_CADDYFILE=${caddyfile}`,
    `PLATFORM_RESOLV_CONF=${edgeResolvConf()}`,
    ...(e.mode === "public" && e.acmeCaRoot ? [`PLATFORM_ACME_ROOT=${e.acmeCaRoot}`] : []),
  ];
}

/** Proves a new edge's image and configuration before anything is swapped: `caddy validate`, run once. */
async function validateEdge(e: EdgeInputs, caddyfile: string): Promise<void> {
  const c = await docker().createContainer({
    Image: e.image,
    Env: edgeEnv(e, caddyfile),
    Entrypoint: ["sh", "-c", `${WRITE_CONFIG} && caddy validate --adapter caddyfile --config /tmp/Caddyfile`],
    Labels: { "platform.managed": "true" },
  });
  try {
    await c.start();
    const { StatusCode } = (await c.wait()) as { StatusCode: number };
    if (StatusCode === 0) return;
    const out = (await logTail(c.id)) || "(no output)";
    // An image from before the set-up built Caddy 2.11 (Debian's 2.6 knows no request_buffers).
    const hint = /unrecognized subdirective/.test(out)
      ? `\nThe edge needs Caddy >= 2.11 (request bodies replayed on retries): run npm run setup, which builds platform-local/caddy:2.11, or set PLATFORM_CADDY_IMAGE to such an image.`
      : "";
    throw new Error(
      `the new HTTPS edge (${e.image}) refused its configuration (exit ${StatusCode}); the running edge was left as it is${hint}\n${out}`,
    );
  } finally {
    await c.remove({ force: true, v: true }).catch(() => undefined);
  }
}

/**
 * Replaces the edge only once the new one is proven: validated first, then started beside the
 * old one on the same host ports (SO_REUSEPORT), and the old one stopped gracefully (it finishes
 * what it serves) only once the new one serves. Connections to 127.0.0.1 go to whichever edge
 * binds 127.0.0.1 itself rather than every interface, so a switch from public to local hands
 * them over at once too. An edge of an earlier version, published through Docker, holds its
 * ports in docker-proxy, which shares nothing: it is stopped first, once.
 */
async function replaceEdge(
  old: Docker.Container,
  oldInfo: Docker.ContainerInspectInfo,
  e: EdgeInputs,
  hash: string,
  caddyfile: string,
): Promise<string> {
  await validateEdge(e, caddyfile);
  const published = Object.keys(oldInfo.HostConfig.PortBindings ?? {}).length > 0;
  await unlessGone(() => docker().getContainer(`${edgeContainer()}-next`).remove({ force: true, v: true }));
  if (published) await old.stop({ t: 5 }).catch(() => undefined);
  let next: Docker.Container;
  try {
    next = await startEdge(`${edgeContainer()}-next`, e, hash, caddyfile);
  } catch (err) {
    if (published) await old.start().catch(() => undefined);
    throw err;
  }
  await old.stop({ t: OLD_EDGE_GRACE_SECONDS }).catch(() => undefined);
  await old.remove({ force: true, v: true });
  await next.rename({ name: edgeContainer() });
  return next.id;
}

/**
 * SO_REUSEPORT would let a second edge of this engine (PLATFORM_EDGE_NAME) share a port with the
 * first without an error, each taking a share of the connections: refused here instead.
 */
async function refuseSharedPort(e: EdgeInputs): Promise<void> {
  const mine = new Set([edgeContainer(), `${edgeContainer()}-next`]);
  const ports = new Set(listens(e).map((l) => l.split(":")[1]));
  for (const c of await docker().listContainers({ filters: { label: ["platform.edge-listens"] } })) {
    const name = (c.Names[0] ?? "").replace(/^\//, "");
    if (mine.has(name)) continue;
    const taken = (c.Labels["platform.edge-listens"] ?? "").split(",").map((l) => l.split(":")[1]);
    const shared = taken.find((p) => p && ports.has(p));
    if (shared)
      throw new Error(
        `the HTTPS edge ${edgeContainer()} cannot listen on port ${shared}: the edge ${name} of this engine does. Choose another port (--https-port, PLATFORM_HTTPS_PORT, PLATFORM_HTTP_PORT), or use that edge (unset PLATFORM_EDGE_NAME)`,
      );
  }
}

/** How long a replaced edge may take to finish the requests it is serving (Caddy's graceful stop). */
const OLD_EDGE_GRACE_SECONDS = 10;

/**
 * The one edge of this engine, as these inputs want it, and its resolver; returns the resolver's
 * id (the container an attachment joins to its network). The edge is shared by every
 * application, so its port and domain are the engine's: a deploy that asks for others moves the
 * edge for all. Two deploys never work on it at once (a lock in the platform home), so two first
 * deploys cannot remove each other's edge.
 */
async function ensureEdge(e: EdgeInputs): Promise<string> {
  return withEdgeLock(async () => {
    const caddyfile = edgeCaddyfile(e);
    const hash = configHash(e, caddyfile);
    await refuseSharedPort(e);
    const existing = docker().getContainer(edgeContainer());
    const info = await unlessGone(() => existing.inspect());
    // An edge of an earlier version sat on the application networks itself: its resolver takes them over.
    const legacy = Object.keys(info?.NetworkSettings.Networks ?? {}).filter((n) => n !== "bridge" && n !== "host");
    const resolver = await ensureResolver(e.image, legacy);
    if (info?.Config.Labels?.["platform.edge-config"] === hash) {
      if (!info.State.Running) await existing.start();
      return resolver;
    }
    if (info) await replaceEdge(existing, info, e, hash, caddyfile);
    else await startEdge(edgeContainer(), e, hash, caddyfile);
    // A new public edge (or one that was local) learns the hosts of the services already running.
    await syncEdgeAllowList();
    return resolver;
  });
}

export const edgeHandler: ResourceHandler = {
  inputKeys: ["network", "image", "httpsPort", "appsDomain", ...PUBLIC_KEYS],
  updatable: ["image", "httpsPort", "appsDomain", ...PUBLIC_KEYS],
  ...buildAttachmentMethods(edgeResolverContainer, "edgeContainer", (inputs) => ensureEdge(inputs as unknown as EdgeInputs)),

  // The edge as it is: gone, detached (its resolver off the network) or of an earlier version
  // (published through Docker) means recreate; another port, domain or image (a deploy of
  // another application moved it) shows as drift, which the next update undoes.
  async read(_id, props) {
    const edge = await unlessGone(() => docker().getContainer(edgeContainer()).inspect());
    const networks = await resolverNetworks();
    if (edge?.HostConfig.NetworkMode !== "host" || !networks?.includes(String(props.network))) return undefined;
    const labels = edge.Config.Labels ?? {};
    // A public edge where these inputs want the local one (or the other way) is drift, as a port is.
    const mode = labels["platform.edge-mode"] === "public" ? "public" : undefined;
    const port = (key: string, fallback: unknown) => (labels[key] ? Number(labels[key]) : fallback);
    const publicProps = mode
      ? {
          mode,
          httpPort: port("platform.edge-http-port", props.httpPort),
          acmeCa: labels["platform.edge-acme-ca"],
          acmeEmail: labels["platform.edge-acme-email"],
        }
      : { mode: undefined, httpPort: undefined, acmeCa: undefined, acmeEmail: undefined, acmeCaRoot: undefined };
    return {
      ...props,
      httpsPort: port("platform.edge-https-port", props.httpsPort),
      appsDomain: labels["platform.edge-domain"] ?? props.appsDomain,
      image: edge.Config.Image,
      ...Object.fromEntries(Object.entries(publicProps).filter(([k, v]) => v !== undefined || k in props)),
    };
  },
};
