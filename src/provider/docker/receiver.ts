import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type Docker from "dockerode";
import { buildAttachmentMethods } from "./attachment.js";
import { docker, logTail, unlessGone } from "../../docker-client.js";
import { remoteEngineAddress } from "../../docker-ssh.js";
import { withEdgeLock } from "./edge-lock.js";
import type { ResourceHandler } from "../handler.js";
import { waitHealthy } from "./health.js";
import {
  receiverContext,
  TELEMETRY_CONTAINER,
  TELEMETRY_DATA,
  TELEMETRY_HASH_LABEL,
  TELEMETRY_PORT,
  TELEMETRY_REPOSITORY,
} from "../contract/receiver-image.js";
import type { TelemetryInputs } from "../contract/docker-inputs.js";

export type { TelemetryInputs };

/** The host directory the running receiver writes to: another one (PLATFORM_TELEMETRY_DIR moved) replaces it. */
const STORE_LABEL = "platform.telemetry-store";

/** A quiet BuildKit build with the Docker CLI; a failure carries the last lines of its output. */
export function runQuietBuild(args: string[], what: string): Promise<void> {
  const cli = process.env.PLATFORM_DOCKER_CLI || "docker";
  return new Promise((resolve, reject) => {
    const child = spawn(cli, ["build", "-q", ...args], {
      env: { ...process.env, DOCKER_BUILDKIT: "1" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", (e) => reject(new Error(`could not run ${cli}: ${e.message}`)));
    child.on("close", (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`building ${what} failed (exit ${code}):\n${err.trim().split("\n").slice(-20).join("\n")}`)),
    );
  });
}

/** The receiver image for these inputs, built from this install's files when missing (offline: only the base image is needed). */
export async function ensureReceiverImage(baseImage: string): Promise<{ tag: string; hash: string; built: boolean }> {
  const ctx = receiverContext(baseImage);
  const info = await unlessGone(() => docker().getImage(ctx.tag).inspect());
  if (info?.Config?.Labels?.[TELEMETRY_HASH_LABEL] === ctx.hash) return { tag: ctx.tag, hash: ctx.hash, built: false };
  const dir = mkdtempSync(join(tmpdir(), "platform-telemetry-"));
  try {
    for (const [rel, abs] of ctx.files) {
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      copyFileSync(abs, join(dir, rel));
    }
    writeFileSync(join(dir, "app", "package.json"), '{"type":"module"}');
    writeFileSync(join(dir, "Dockerfile"), ctx.dockerfile);
    await runQuietBuild(["-t", ctx.tag, "--label", `${TELEMETRY_HASH_LABEL}=${ctx.hash}`, dir], "the telemetry receiver image");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { tag: ctx.tag, hash: ctx.hash, built: true };
}

/** The engine's own volume holds the store of an engine over SSH: the platform home is not on its machine. */
export const REMOTE_STORE_VOLUME = "platform-telemetry";

/** Where the store lives: the home's directory (bound), or on a server the engine's volume. */
function storeMount(storeDir: string): { label: string; mount: Docker.MountSettings; user?: string } {
  if (remoteEngineAddress())
    return { label: `volume:${REMOTE_STORE_VOLUME}`, mount: { Type: "volume", Source: REMOTE_STORE_VOLUME, Target: TELEMETRY_DATA } };
  mkdirSync(storeDir, { recursive: true, mode: 0o700 });
  // As the host user, so the store's files stay theirs (Studio opens them).
  const user = typeof process.getuid === "function" ? `${process.getuid()}:${process.getgid!()}` : undefined;
  return { label: storeDir, mount: { Type: "bind", Source: storeDir, Target: TELEMETRY_DATA }, ...(user ? { user } : {}) };
}

async function startReceiver(tag: string, hash: string, storeDir: string, networks: string[]): Promise<Docker.Container> {
  const store = storeMount(storeDir);
  const c = await docker().createContainer({
    name: TELEMETRY_CONTAINER,
    Image: tag,
    ...(store.user ? { User: store.user } : {}),
    Labels: { "platform.managed": "true", [TELEMETRY_HASH_LABEL]: hash, [STORE_LABEL]: store.label },
    HostConfig: {
      // On application networks only, never the default bridge: nothing but their services reaches it.
      NetworkMode: networks[0],
      Mounts: [store.mount],
      RestartPolicy: { Name: "unless-stopped" },
      SecurityOpt: ["no-new-privileges:true"],
      Init: true,
      LogConfig: { Type: "json-file", Config: { "max-size": "10m", "max-file": "3" } },
    },
  });
  try {
    for (const n of networks.slice(1))
      await docker()
        .getNetwork(n)
        .connect({ Container: c.id })
        .catch(() => undefined);
    await c.start();
    const probe = `fetch("http://127.0.0.1:${TELEMETRY_PORT}/v1/traces").then((r) => process.exit(r.status === 405 ? 0 : 1), () => process.exit(1))`;
    await waitHealthy(c.id, { kind: "exec", command: ["node", "-e", probe] }, 30, "telemetry receiver");
  } catch (err) {
    const tail = await logTail(c.id).catch(() => "");
    await c.remove({ force: true, v: true }).catch(() => undefined);
    throw new Error(`${(err as Error).message}${tail ? `\n${tail}` : ""}`);
  }
  return c;
}

/** The one receiver of this engine, current; an older one is replaced on the networks it had. */
async function ensureReceiver(t: TelemetryInputs): Promise<string> {
  return withEdgeLock(async () => {
    const { tag, hash } = await ensureReceiverImage(t.baseImage);
    const existing = docker().getContainer(TELEMETRY_CONTAINER);
    const info = await unlessGone(() => existing.inspect());
    const labels = info?.Config.Labels ?? {};
    const storeLabel = remoteEngineAddress() ? `volume:${REMOTE_STORE_VOLUME}` : t.storeDir;
    if (info && labels[TELEMETRY_HASH_LABEL] === hash && labels[STORE_LABEL] === storeLabel) {
      if (!info.State.Running) await existing.start();
      return info.Id;
    }
    const attached = Object.keys(info?.NetworkSettings.Networks ?? {}).filter((n) => n !== "bridge");
    if (info) await existing.remove({ force: true, v: true });
    const id = (await startReceiver(tag, hash, t.storeDir, [t.network, ...attached.filter((n) => n !== t.network)])).id;
    // The receiver image it replaced is of no further use (one still in use elsewhere stays: 409).
    if (info && info.Config.Image !== tag && info.Config.Image.startsWith(`${TELEMETRY_REPOSITORY}:`)) {
      await docker()
        .getImage(info.Config.Image)
        .remove()
        .catch(() => undefined);
    }
    return id;
  }, "telemetry");
}

export const telemetryHandler: ResourceHandler = {
  inputKeys: ["network", "baseImage", "hash"],
  updatable: ["baseImage", "hash"],
  ...buildAttachmentMethods(TELEMETRY_CONTAINER, "receiverContainer", (inputs) => ensureReceiver(inputs as unknown as TelemetryInputs)),

  // Gone, stopped or detached: recreate (a deploy refreshes first, so it comes back).
  async read(_id, props) {
    const c = await unlessGone(() => docker().getContainer(TELEMETRY_CONTAINER).inspect());
    if (!c?.State.Running || !Object.keys(c.NetworkSettings.Networks ?? {}).includes(String(props.network))) return undefined;
    return { ...props };
  },
};

/**
 * platform:kubernetes:ReceiverImage: the receiver image on this machine's Docker engine, for a
 * cluster to get (ClusterImage, RegistryImage) like an application's image. Its id is the tag,
 * which carries the hash of its files and base: a new receiver is a new image.
 */
export const receiverImageHandler: ResourceHandler = {
  inputKeys: ["baseImage", "hash"],
  async create(_urn, inputs) {
    const { tag } = await ensureReceiverImage(String(inputs.baseImage));
    return { id: tag, outs: {} };
  },
  async read(id, props) {
    const info = await unlessGone(() => docker().getImage(id).inspect());
    return info ? { ...props } : undefined;
  },
  // Kept: the cluster may still run it, and the Docker target's receiver may be the same image.
  async delete() {},
};
