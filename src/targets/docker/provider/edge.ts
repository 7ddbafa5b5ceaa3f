import { createHash } from "node:crypto";
import { docker, isNotFound } from "./docker-client.js";
import type { ResourceHandler } from "./handler.js";
import { waitHealthy } from "./health.js";
import { buildEdgeCaddyfile, EDGE_CONTAINER, EDGE_DATA_VOLUME } from "../edge-config.js";

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
}

function configHash(e: EdgeInputs, caddyfile: string): string {
  return createHash("sha256").update(`${e.image}\n${e.httpsPort}\n${caddyfile}`).digest("hex").slice(0, 16);
}

async function ensureEdge(e: EdgeInputs): Promise<string> {
  const caddyfile = buildEdgeCaddyfile(e.appsDomain);
  const hash = configHash(e, caddyfile);
  const existing = docker().getContainer(EDGE_CONTAINER);
  let attached: string[] = [];
  try {
    const info = await existing.inspect();
    if (info.Config.Labels?.["platform.edge-config"] === hash) {
      if (!info.State.Running) await existing.start();
      return info.Id;
    }
    // Only a new port, domain or proxy image gets here: the one time the edge restarts. The
    // new edge joins every application network the old one served.
    attached = Object.keys(info.NetworkSettings.Networks ?? {}).filter((n) => n !== "bridge");
    await existing.remove({ force: true, v: true });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  const c = await docker().createContainer({
    name: EDGE_CONTAINER,
    Image: e.image,
    Env: [`PLATFORM_CADDYFILE=${caddyfile}`],
    Entrypoint: ["sh", "-c", 'printf "%s" "$PLATFORM_CADDYFILE" > /tmp/Caddyfile && exec caddy run --adapter caddyfile --config /tmp/Caddyfile'],
    Labels: { "platform.managed": "true", "platform.edge-config": hash },
    ExposedPorts: { "443/tcp": {} },
    HostConfig: {
      PortBindings: { "443/tcp": [{ HostIp: "127.0.0.1", HostPort: String(e.httpsPort) }] },
      Mounts: [{ Type: "volume", Source: EDGE_DATA_VOLUME, Target: "/data" }],
      RestartPolicy: { Name: "unless-stopped" },
    },
  });
  for (const n of attached) await docker().getNetwork(n).connect({ Container: c.id }).catch(() => undefined);
  await c.start();
  await waitHealthy(c.id, { kind: "exec", command: ["sh", "-c", "test -S /run/caddy-admin.sock"] }, 30, "edge proxy");
  return c.id;
}

export const edgeHandler: ResourceHandler = {
  inputKeys: ["network", "image", "httpsPort", "appsDomain"],
  updatable: ["image", "httpsPort", "appsDomain"],

  async create(_urn, inputs) {
    const e = inputs as unknown as EdgeInputs;
    const edgeId = await ensureEdge(e);
    try {
      await docker().getNetwork(e.network).connect({ Container: edgeId });
    } catch (err) {
      // Already attached (a re-created stack) is the state we want.
      if ((err as { statusCode?: number }).statusCode !== 403) throw err;
    }
    return { id: `${EDGE_CONTAINER}@${e.network}`, outs: { edgeContainer: EDGE_CONTAINER } };
  },

  async update(_id, _olds, news) {
    const e = news as unknown as EdgeInputs;
    const edgeId = await ensureEdge(e);
    await docker().getNetwork(e.network).connect({ Container: edgeId }).catch(() => undefined);
    return { edgeContainer: EDGE_CONTAINER };
  },

  async read(_id, props) {
    try {
      const net = await docker().getNetwork(String(props.network)).inspect();
      const attached = Object.values(net.Containers ?? {}).some((c) => (c as { Name: string }).Name === EDGE_CONTAINER);
      return attached ? props : undefined;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  },

  async delete(_id, props) {
    try {
      await docker().getNetwork(String(props.network)).disconnect({ Container: EDGE_CONTAINER, Force: true });
    } catch (err) {
      const code = (err as { statusCode?: number }).statusCode;
      if (code !== 404 && code !== 403 && code !== 500) throw err;
    }
  },
};
