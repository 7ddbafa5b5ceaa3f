import { baseImages } from "../home/images.js";
import { docker } from "../docker-client.js";
import { engineLoopbackPort } from "../docker-ssh.js";
import { VisibleError } from "../errors.js";

/**
 * A local tunnel to a service port on a stack's private network. Nothing of a stack is
 * published on the host, so a small helper container joins the network and forwards one
 * port, published on 127.0.0.1 only, to the service's name there. It resolves the name per
 * connection, so the tunnel survives a replaced database container. It runs on the Node base
 * image the platform has anyway and removes itself when stopped.
 */
export interface Tunnel {
  host: string;
  port: number;
  containerId: string;
  close(): Promise<void>;
}

export const TUNNEL_LABEL = "platform.tunnel";

// Plain net.pipe, both ways; a failed dial closes the client's socket.
const FORWARDER = `const net=require("net");const [h,p]=[process.env.TARGET_HOST,+process.env.TARGET_PORT];
net.createServer(c=>{const u=net.connect(p,h);c.pipe(u).pipe(c);const end=()=>{c.destroy();u.destroy()};c.on("error",end);u.on("error",end)}).listen(7000,"0.0.0.0",()=>console.log("listening"));
process.on("SIGTERM",()=>process.exit(0));`;

function tunnelName(network: string, alias: string, owner: string): string {
  return `platform-tunnel-${network}-${alias}-${owner}`.replace(/[^a-zA-Z0-9_.-]/g, "-").slice(0, 120);
}

async function publishedPort(id: string): Promise<number | undefined> {
  const info = await docker().getContainer(id).inspect();
  const bind = info.NetworkSettings.Ports?.["7000/tcp"]?.[0];
  return info.State.Running && bind ? Number(bind.HostPort) : undefined;
}

/** The engine's proxy accepts on the host port before the forwarder listens: wait for it to say so. */
async function untilListening(id: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const out = await docker()
      .getContainer(id)
      .logs({ stdout: true, stderr: true, follow: false })
      .catch(() => Buffer.alloc(0));
    if (out.toString("utf8").includes("listening")) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the tunnel container did not start listening");
}

/**
 * Opens (or, for the same owner, reuses) a tunnel to `alias:port` on `network`. `owner`
 * names who holds it ("studio", or "cli-<pid>"), so two holders never close each other's.
 */
export async function openTunnel(network: string, alias: string, port: number, owner: string): Promise<Tunnel> {
  const engine = docker();
  const name = tunnelName(network, alias, owner);
  const existing = (await engine.listContainers({ all: true, filters: { name: [`^/${name}$`] } }))[0];
  let id = existing?.Id;
  let hostPort = id ? await publishedPort(id).catch(() => undefined) : undefined;
  if (id && hostPort === undefined) {
    await engine
      .getContainer(id)
      .remove({ force: true })
      .catch(() => undefined);
    id = undefined;
  }
  if (!id) {
    const c = await engine.createContainer({
      name,
      Image: baseImages().node,
      Cmd: ["node", "-e", FORWARDER],
      Env: [`TARGET_HOST=${alias}`, `TARGET_PORT=${port}`],
      Labels: { [TUNNEL_LABEL]: `${network}/${alias}`, "platform.tunnel.owner": owner },
      ExposedPorts: { "7000/tcp": {} },
      HostConfig: {
        AutoRemove: true,
        NetworkMode: network,
        PortBindings: { "7000/tcp": [{ HostIp: "127.0.0.1", HostPort: "" }] },
        Memory: 64 * 1024 * 1024,
        SecurityOpt: ["no-new-privileges"],
      },
    });
    await c.start();
    id = c.id;
    await untilListening(id);
    hostPort = await publishedPort(id);
  }
  if (hostPort === undefined) throw new Error(`the tunnel container ${name} did not publish its port`);
  const containerId = id;
  // On an engine over SSH the port is on the server's loopback: a forward reaches it from here.
  const localPort = await engineLoopbackPort(hostPort);
  if (localPort === undefined) {
    await engine
      .getContainer(containerId)
      .remove({ force: true })
      .catch(() => undefined);
    throw new VisibleError(
      "a tunnel into the stack needs the engine on this machine or over SSH (DOCKER_HOST=ssh://user@host), not tcp://",
    );
  }
  return {
    host: "127.0.0.1",
    port: localPort,
    containerId,
    close: async () => {
      await engine
        .getContainer(containerId)
        .remove({ force: true })
        .catch(() => undefined);
    },
  };
}

/** Removes every tunnel into a network, whoever holds it: a stack's network cannot go while one is attached. */
export async function removeTunnelsInto(network: string): Promise<string[]> {
  const engine = docker();
  const list = (await engine.listContainers({ all: true, filters: { label: [TUNNEL_LABEL] } })).filter((c) =>
    c.Labels[TUNNEL_LABEL]?.startsWith(`${network}/`),
  );
  await Promise.all(
    list.map((c) =>
      engine
        .getContainer(c.Id)
        .remove({ force: true })
        .catch(() => undefined),
    ),
  );
  return list.map((c) => (c.Names[0] ?? c.Id).replace(/^\//, ""));
}

/** Removes the tunnels a holder left (Studio stopping). */
export async function closeTunnels(owner: string): Promise<void> {
  const engine = docker();
  const list = await engine.listContainers({ all: true, filters: { label: [`platform.tunnel.owner=${owner}`] } });
  await Promise.all(
    list.map((c) =>
      engine
        .getContainer(c.Id)
        .remove({ force: true })
        .catch(() => undefined),
    ),
  );
}
