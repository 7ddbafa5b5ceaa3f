import { createHash } from "node:crypto";
import { docker, unlessGone } from "../../docker-client.js";
import { edgeContainer } from "../../plan/constants.js";
import { joinNetwork } from "./attachment.js";
import { waitHealthy } from "./health.js";

/**
 * The edge's name resolver. The edge runs in the host's network namespace: it binds the host's
 * ports itself, with SO_REUSEPORT as Caddy does on Linux, so a new edge (another mode, image or
 * configuration) starts beside the old one and takes over without a moment when nothing
 * listens (edge.ts). There, Docker's DNS, which knows the "<label>.edge" aliases of the public
 * services, does not answer. This small container does: it joins every application network (as
 * the edge itself did before) and relays queries to Docker's DNS with dnsmasq, without a cache
 * (a container swap shows at once, as it did inside the edge). It is published on a loopback
 * address of the host that the edge's resolv.conf names, so nothing outside the machine reaches it.
 */
export const edgeResolverContainer = (): string => `${edgeContainer()}-dns`;

/**
 * A loopback address of this edge's own (127.0.83.1 for the default edge; another one per
 * PLATFORM_EDGE_NAME): its resolver's DNS and the public edge's on-demand guard listen there,
 * apart from anything else on the host's 127.0.0.1.
 */
export function edgeLoopback(name = edgeContainer()): string {
  if (name === "platform-edge") return "127.0.83.1";
  const n = createHash("sha256").update(name).digest().readUInt16BE(0);
  return `127.0.${84 + (n % 100)}.${1 + ((n >> 8) % 250)}`;
}

/** The resolv.conf the edge writes for itself at start: the resolver only, one-second timeouts. */
export function edgeResolvConf(): string {
  return `nameserver ${edgeLoopback()}\noptions timeout:1 attempts:3\n`;
}

const DNSMASQ = [
  "dnsmasq",
  "--keep-in-foreground",
  "--log-facility=-",
  "--no-resolv",
  "--no-hosts",
  "--server=127.0.0.11",
  "--cache-size=0",
  "--user=root",
];

/**
 * The resolver as the edge's image wants it, attached to `networks` (the old edge's, when a
 * bridged edge of an earlier version is replaced). Returns its id; the attachment joins it to
 * each application network from then on.
 */
export async function ensureResolver(image: string, networks: string[] = []): Promise<string> {
  const hash = createHash("sha256")
    .update(`${image}\n${edgeLoopback()}\n${DNSMASQ.join(" ")}`)
    .digest("hex")
    .slice(0, 16);
  const name = edgeResolverContainer();
  const info = await unlessGone(() => docker().getContainer(name).inspect());
  if (info?.Config.Labels?.["platform.edge-config"] === hash) {
    if (!info.State.Running) await docker().getContainer(name).start();
    for (const n of networks) await joinNetwork(n, info.Id);
    return info.Id;
  }
  // Another image: the old resolver's networks go to the new one.
  const keep = Object.keys(info?.NetworkSettings.Networks ?? {}).filter((n) => n !== "bridge" && n !== name);
  if (info) await docker().getContainer(info.Id).remove({ force: true });
  await ownNetwork(name);
  const c = await docker().createContainer({
    name,
    Image: image,
    Entrypoint: DNSMASQ,
    Labels: { "platform.managed": "true", "platform.edge-config": hash },
    ExposedPorts: { "53/udp": {}, "53/tcp": {} },
    HostConfig: {
      NetworkMode: name,
      PortBindings: { "53/udp": [{ HostIp: edgeLoopback(), HostPort: "53" }], "53/tcp": [{ HostIp: edgeLoopback(), HostPort: "53" }] },
      RestartPolicy: { Name: "unless-stopped" },
      SecurityOpt: ["no-new-privileges:true"],
      LogConfig: { Type: "json-file", Config: { "max-size": "1m", "max-file": "2" } },
    },
  });
  try {
    await c.start();
    await waitHealthy(c.id, { kind: "running", settleSeconds: 1 }, 20, "the edge's name resolver (dnsmasq)");
    for (const n of new Set([...keep, ...networks])) await joinNetwork(n, c.id);
  } catch (err) {
    await c.remove({ force: true }).catch(() => undefined);
    const m = (err as Error).message;
    if (/address already in use|port is already allocated/i.test(m))
      throw new Error(`the edge's name resolver cannot listen on ${edgeLoopback()}:53 of this machine: something else uses it (${m})`);
    if (/executable file not found|no such file/i.test(m))
      throw new Error(
        `the edge's image (${image}) has no dnsmasq, which the edge's name resolver runs: run npm run setup (platform-local/caddy has it), or set PLATFORM_CADDY_IMAGE to an image with Caddy >= 2.11 and dnsmasq`,
      );
    throw err;
  }
  return c.id;
}

/** The resolver's own network, so that Docker's DNS runs in it from the start (it does not on the default bridge). */
async function ownNetwork(name: string): Promise<void> {
  if (await unlessGone(() => docker().getNetwork(name).inspect())) return;
  await docker()
    .createNetwork({ Name: name, Labels: { "platform.managed": "true" } })
    .catch((e: { statusCode?: number }) => {
      if (e.statusCode !== 409) throw e;
    });
}

/** The resolver's application networks: the ones an edge attachment has joined. */
export async function resolverNetworks(): Promise<string[] | undefined> {
  const info = await unlessGone(() => docker().getContainer(edgeResolverContainer()).inspect());
  return info ? Object.keys(info.NetworkSettings.Networks ?? {}).filter((n) => n !== edgeResolverContainer()) : undefined;
}
