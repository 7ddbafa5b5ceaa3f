import { createHash } from "node:crypto";
import type Docker from "dockerode";
import { buildAttachmentMethods } from "./attachment.js";
import { docker, logTail, unlessGone } from "../../docker-client.js";
import { withEdgeLock } from "./edge-lock.js";
import type { ResourceHandler } from "../handler.js";
import { waitHealthy } from "./health.js";
import { buildEdgeCaddyfile, edgeContainer, edgeDataVolume } from "./edge-config.js";
import { syncEdgeAllowList } from "./edge-allow.js";
import { ACME_ROOT_PATH, buildPublicEdgeCaddyfile } from "./edge-public-config.js";

/**
 * platform:docker:EdgeAttachment: makes sure the one shared edge proxy runs, and joins it to
 * an application's network. The edge's configuration never changes when services come and
 * go (a Caddy reload drops in-flight requests): it routes by host name to a network alias,
 * so attaching a network is all a new route needs.
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
  if (e.mode !== "public") return buildEdgeCaddyfile(e.appsDomain);
  return buildPublicEdgeCaddyfile(
    e.appsDomain,
    { ca: String(e.acmeCa), email: String(e.acmeEmail), ...(e.acmeCaRoot ? { caRoot: e.acmeCaRoot } : {}) },
    e.httpsPort,
  );
}

/** The host ports the edge publishes: 443 on 127.0.0.1 (local), or 80 and 443 on every interface (public). */
function portBindings(e: EdgeInputs): Record<string, { HostIp: string; HostPort: string }[]> {
  if (e.mode !== "public") return { "443/tcp": [{ HostIp: "127.0.0.1", HostPort: String(e.httpsPort) }] };
  return { "80/tcp": [{ HostIp: "", HostPort: String(e.httpPort ?? 80) }], "443/tcp": [{ HostIp: "", HostPort: String(e.httpsPort) }] };
}

function configHash(e: EdgeInputs, caddyfile: string): string {
  // The local edge's hash is as it always was, so an upgrade does not replace a running edge.
  const ports = e.mode === "public" ? `\n${JSON.stringify(portBindings(e))}\n${e.acmeCaRoot ?? ""}` : "";
  return createHash("sha256").update(`${e.image}\n${e.httpsPort}\n${caddyfile}${ports}`).digest("hex").slice(0, 16);
}

/** Creates, attaches and starts an edge container; a failed start leaves nothing behind. (bench/edge starts one too.) */
export async function startEdge(
  name: string,
  e: EdgeInputs,
  hash: string,
  caddyfile: string,
  networks: string[],
): Promise<Docker.Container> {
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
      ...(e.mode === "public" ? { "platform.edge-acme-ca": String(e.acmeCa), "platform.edge-acme-email": String(e.acmeEmail) } : {}),
    },
    ExposedPorts: Object.fromEntries(Object.keys(portBindings(e)).map((p) => [p, {}])),
    HostConfig: {
      PortBindings: portBindings(e),
      Mounts: [{ Type: "volume", Source: edgeDataVolume(), Target: "/data" }],
      RestartPolicy: { Name: "unless-stopped" },
      SecurityOpt: ["no-new-privileges:true"],
    },
  });
  try {
    for (const n of networks)
      await docker()
        .getNetwork(n)
        .connect({ Container: c.id })
        .catch(() => undefined);
    await c.start();
    await waitHealthy(c.id, { kind: "exec", command: ["sh", "-c", "test -S /run/caddy-admin.sock"] }, 30, "edge proxy");
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

/** The configuration, and the ACME directory's CA root when there is one, written from the environment at start. */
const WRITE_CONFIG = `printf "%s" "$PLATFORM_CADDYFILE" > /tmp/Caddyfile && if [ -n "$PLATFORM_ACME_ROOT" ]; then printf "%s" "$PLATFORM_ACME_ROOT" > ${ACME_ROOT_PATH}; fi`;

function edgeEnv(e: EdgeInputs, caddyfile: string): string[] {
  return [`PLATFORM_CADDYFILE=${caddyfile}`, ...(e.mode === "public" && e.acmeCaRoot ? [`PLATFORM_ACME_ROOT=${e.acmeCaRoot}`] : [])];
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
 * Replaces the edge only once the new one is proven: validated first, then started (beside
 * the old one on a new port; in its place on the same port, the old one only stopped), and
 * the old one removed only when the new one serves. A new edge that fails to start gives the
 * port back to the old one.
 */
async function replaceEdge(
  old: Docker.Container,
  oldInfo: Docker.ContainerInspectInfo,
  e: EdgeInputs,
  hash: string,
  caddyfile: string,
): Promise<string> {
  await validateEdge(e, caddyfile);
  const attached = Object.keys(oldInfo.NetworkSettings.Networks ?? {}).filter((n) => n !== "bridge");
  // A host port that both edges want: the old one must give it up before the new one starts.
  const bindings = (oldInfo.HostConfig.PortBindings ?? {}) as Record<string, { HostPort: string }[] | null>;
  const taken = new Set(Object.values(bindings).flatMap((b) => (b ?? []).map((x) => x.HostPort)));
  const samePort = Object.values(portBindings(e)).some((b) => b.some((x) => taken.has(x.HostPort)));
  await unlessGone(() => docker().getContainer(`${edgeContainer()}-next`).remove({ force: true, v: true }));
  if (samePort) await old.stop({ t: 5 }).catch(() => undefined);
  let next: Docker.Container;
  try {
    next = await startEdge(`${edgeContainer()}-next`, e, hash, caddyfile, attached);
  } catch (err) {
    if (samePort) await old.start().catch(() => undefined);
    throw err;
  }
  await old.remove({ force: true, v: true });
  await next.rename({ name: edgeContainer() });
  return next.id;
}

/**
 * The one edge of this engine, as these inputs want it. It is shared by every application,
 * so its port and domain are the engine's: a deploy that asks for others moves the edge for
 * all. Two deploys never work on it at once (a lock in the platform home), so two first
 * deploys cannot remove each other's edge.
 */
async function ensureEdge(e: EdgeInputs): Promise<string> {
  return withEdgeLock(async () => {
    const caddyfile = edgeCaddyfile(e);
    const hash = configHash(e, caddyfile);
    const existing = docker().getContainer(edgeContainer());
    const info = await unlessGone(() => existing.inspect());
    if (info?.Config.Labels?.["platform.edge-config"] === hash) {
      if (!info.State.Running) await existing.start();
      return info.Id;
    }
    const id = info ? await replaceEdge(existing, info, e, hash, caddyfile) : (await startEdge(edgeContainer(), e, hash, caddyfile, [])).id;
    // A new public edge (or one that was local) learns the hosts of the services already running.
    await syncEdgeAllowList();
    return id;
  });
}

export const edgeHandler: ResourceHandler = {
  inputKeys: ["network", "image", "httpsPort", "appsDomain", ...PUBLIC_KEYS],
  updatable: ["image", "httpsPort", "appsDomain", ...PUBLIC_KEYS],
  ...buildAttachmentMethods(edgeContainer, "edgeContainer", (inputs) => ensureEdge(inputs as unknown as EdgeInputs)),

  // The edge as it is: gone or detached means recreate; another port, domain or image (a
  // deploy of another application moved it) shows as drift, which the next update undoes.
  async read(_id, props) {
    const edge = await unlessGone(() => docker().getContainer(edgeContainer()).inspect());
    if (!edge || !Object.keys(edge.NetworkSettings.Networks ?? {}).includes(String(props.network))) return undefined;
    const port = edge.HostConfig.PortBindings?.["443/tcp"]?.[0]?.HostPort;
    const labels = edge.Config.Labels ?? {};
    // A public edge where these inputs want the local one (or the other way) is drift, as a port is.
    const mode = labels["platform.edge-mode"] === "public" ? "public" : undefined;
    const httpPort = edge.HostConfig.PortBindings?.["80/tcp"]?.[0]?.HostPort;
    const publicProps = mode
      ? {
          mode,
          httpPort: httpPort ? Number(httpPort) : props.httpPort,
          acmeCa: labels["platform.edge-acme-ca"],
          acmeEmail: labels["platform.edge-acme-email"],
        }
      : { mode: undefined, httpPort: undefined, acmeCa: undefined, acmeEmail: undefined, acmeCaRoot: undefined };
    return {
      ...props,
      httpsPort: port ? Number(port) : props.httpsPort,
      appsDomain: labels["platform.edge-domain"] ?? props.appsDomain,
      image: edge.Config.Image,
      ...Object.fromEntries(Object.entries(publicProps).filter(([k, v]) => v !== undefined || k in props)),
    };
  },
};
