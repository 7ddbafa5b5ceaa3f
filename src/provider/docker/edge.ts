import type Docker from "dockerode";
import { buildAttachmentMethods } from "./attachment.js";
import { docker, logTail, unlessGone } from "../../docker-client.js";
import { withEdgeLock } from "./edge-lock.js";
import type { ResourceHandler } from "../handler.js";
import { buildEdgeCaddyfile, edgeContainer } from "./edge-config.js";
import { syncEdgeAllowList } from "./edge-allow.js";
import { buildPublicEdgeCaddyfile } from "./edge-public-config.js";
import { edgeResolverContainer, ensureResolver, resolverNetworks } from "./edge-resolver.js";
import {
  configHash,
  type EdgeInputs,
  type EdgeNetworking,
  edgeEnv,
  edgeNetworking,
  listens,
  startEdge,
  VALIDATE_COMMAND,
} from "./edge-start.js";

export { type EdgeInputs, startEdge };

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
const PUBLIC_KEYS = ["mode", "httpPort", "acmeCa", "acmeEmail", "acmeCaRoot"] as const;
/** Set by read only, never by the program: the running edge's configuration is not the one its inputs make. */
const STALE_KEY = "staleConfig";

/** The edge's Caddyfile for its mode: the host's ports in the host's network, 80 and 443 of its container when published. */
function edgeCaddyfile(e: EdgeInputs, how: EdgeNetworking): string {
  const inHost = how === "host";
  if (e.mode !== "public") return buildEdgeCaddyfile(e.appsDomain, inHost ? e.httpsPort : 443, inHost);
  return buildPublicEdgeCaddyfile(
    e.appsDomain,
    { ca: String(e.acmeCa), email: String(e.acmeEmail), ...(e.acmeCaRoot ? { caRoot: e.acmeCaRoot } : {}) },
    e.httpsPort,
    inHost ? (e.httpPort ?? 80) : 80,
    inHost ? e.httpsPort : 443,
  );
}

/** Proves a new edge's image and configuration before anything is swapped: `caddy validate`, run once. */
async function validateEdge(e: EdgeInputs, caddyfile: string): Promise<void> {
  const c = await docker().createContainer({
    Image: e.image,
    Env: edgeEnv(e, caddyfile, "published"),
    Entrypoint: VALIDATE_COMMAND,
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
 * old one on the same host ports (in the host's network, SO_REUSEPORT), and the old one stopped
 * gracefully (it finishes what it serves) only once the new one serves. From its bind on, the new
 * edge takes every new connection on a port they share (the set-up's Caddy steers its socket's
 * SO_REUSEPORT group to the newest socket: scripts/setup/go/caddy), so the old one has none left
 * in its accept queue when it closes its socket, where Linux would reset them. Both modes bind
 * 127.0.0.1 on a socket of its own (PUBLIC_BIND), so a switch of mode shares that port's group
 * too. A published edge holds its ports in docker-proxy, which shares nothing: when either edge
 * is published and they want a port in common, the old one is stopped first (about a second
 * without a listener), and restarted if the new one fails.
 */
async function replaceEdge(
  old: Docker.Container,
  oldInfo: Docker.ContainerInspectInfo,
  e: EdgeInputs,
  start: (name: string, networks: string[]) => Promise<Docker.Container>,
  how: EdgeNetworking,
): Promise<string> {
  const bindings = (oldInfo.HostConfig.PortBindings ?? {}) as Record<string, { HostPort: string }[] | null>;
  const oldPorts = new Set([
    ...Object.values(bindings).flatMap((b) => (b ?? []).map((x) => x.HostPort)),
    ...(oldInfo.Config.Labels?.["platform.edge-listens"] ?? "").split(",").map((l) => l.split(":")[1]),
  ]);
  const oldPublished = oldInfo.HostConfig.NetworkMode !== "host";
  const stopFirst = (oldPublished || how === "published") && listens(e).some((l) => oldPorts.has(l.split(":")[1]));
  // A published edge joins the application networks itself: the old one's, or its resolver's.
  const networks = how === "host" ? [] : oldPublished ? attachedTo(oldInfo) : ((await resolverNetworks()) ?? []);
  await unlessGone(() => docker().getContainer(`${edgeContainer()}-next`).remove({ force: true, v: true }));
  if (stopFirst) await old.stop({ t: 5 }).catch(() => undefined);
  let next: Docker.Container;
  try {
    next = await start(`${edgeContainer()}-next`, networks);
  } catch (err) {
    if (stopFirst) await old.start().catch(() => undefined);
    throw err;
  }
  await old.stop({ t: OLD_EDGE_GRACE_SECONDS }).catch(() => undefined);
  await old.remove({ force: true, v: true });
  await next.rename({ name: edgeContainer() });
  return next.id;
}

/** The application networks a container is on. */
function attachedTo(info: Docker.ContainerInspectInfo | undefined): string[] {
  return Object.keys(info?.NetworkSettings.Networks ?? {}).filter((n) => n !== "bridge" && n !== "host" && !n.endsWith("-dns"));
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
    const how = await edgeNetworking();
    const caddyfile = edgeCaddyfile(e, how);
    const hash = await configHash(e, caddyfile, how);
    await refuseSharedPort(e);
    const existing = docker().getContainer(edgeContainer());
    const info = await unlessGone(() => existing.inspect());
    // In the host's network, the resolver sits on the application networks (an edge that was
    // published hands its networks over to it).
    const resolver = how === "host" ? await ensureResolver(e.image, attachedTo(info)) : undefined;
    if (info?.Config.Labels?.["platform.edge-config"] === hash) {
      if (!info.State.Running) await existing.start();
      return resolver ?? info.Id;
    }
    if (info) await validateEdge(e, caddyfile);
    const start = (name: string, networks: string[]) => startEdge(name, e, hash, caddyfile, how, networks);
    const id = info ? await replaceEdge(existing, info, e, start, how) : (await start(edgeContainer(), [])).id;
    // A new public edge (or one that was local) learns the hosts of the services already running.
    await syncEdgeAllowList();
    return resolver ?? id;
  });
}

export const edgeHandler: ResourceHandler = {
  inputKeys: ["network", "image", "httpsPort", "appsDomain", ...PUBLIC_KEYS, STALE_KEY],
  updatable: ["image", "httpsPort", "appsDomain", ...PUBLIC_KEYS, STALE_KEY],
  // The attachment joins the resolver (in the host's network) or the edge itself (published) to
  // the network; a delete takes both off it.
  ...buildAttachmentMethods(
    () => [edgeResolverContainer(), edgeContainer()],
    "edgeContainer",
    (inputs) => ensureEdge(inputs as unknown as EdgeInputs),
  ),

  // The edge as it is: gone, detached (its resolver off the network) or of an earlier version
  // (published through Docker) means recreate; another port, domain or image (a deploy of
  // another application moved it) shows as drift, which the next update undoes.
  async read(_id, props) {
    const edge = await unlessGone(() => docker().getContainer(edgeContainer()).inspect());
    if (!edge) return undefined;
    // Held otherwise than this engine wants (an edge of an earlier version was published): recreated.
    const how = await edgeNetworking();
    const inHost = edge.HostConfig.NetworkMode === "host";
    if (inHost !== (how === "host")) return undefined;
    const networks = inHost ? await resolverNetworks() : attachedTo(edge);
    if (!networks?.includes(String(props.network))) return undefined;
    const labels = edge.Config.Labels ?? {};
    // An edge made by another version of the platform (its configuration is not what these
    // inputs make now): drift that the next deploy's update undoes, by replacing the edge.
    const wanted = await configHash(props as unknown as EdgeInputs, edgeCaddyfile(props as unknown as EdgeInputs, how), how);
    const stale = labels["platform.edge-config"] !== wanted ? { [STALE_KEY]: "another configuration" } : {};
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
      ...stale,
    };
  },
};
