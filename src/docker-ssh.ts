import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { VisibleError } from "./errors.js";

/**
 * DOCKER_HOST=ssh://user@host[:port]: an engine on a server, reached as Docker's own client
 * reaches it: through this machine's OpenSSH (so ~/.ssh/config, keys, the agent and
 * known_hosts all apply, host keys checked) and `docker system dial-stdio` on the server.
 *
 * Master connections (ControlMaster) opened by this process; a unix socket in this process carries each
 * API connection over it, and DOCKER_HOST becomes that socket for this process and its children
 * (the Pulumi engine, the provider plugin, `docker build`). BuildKit builds run on the server:
 * only the build context travels. PLATFORM_REMOTE_ENGINE keeps the ssh:// address, for what
 * must know the engine is elsewhere, and for a detached child (Studio) to connect again once
 * the socket of the process that started it is gone. PLATFORM_SSH_CONFIG is an ssh_config file
 * to use instead of ~/.ssh/config (`ssh -F`).
 */
export const REMOTE_ENGINE_VAR = "PLATFORM_REMOTE_ENGINE";

interface Master {
  readonly url: string;
  readonly target: string[];
  readonly control: string;
  /** Sessions open over it now (each API connection, each forwarded connection is one). */
  sessions: number;
}

/**
 * OpenSSH's sshd allows 10 sessions per connection (MaxSessions); a deploy opens more API
 * connections than that at once (builds, log streams, health checks), so this process keeps a
 * pool: a new master connection when every one has SESSIONS_PER_MASTER open.
 */
const SESSIONS_PER_MASTER = 8;
const ready: Master[] = [];
let starting: Promise<void> | undefined;
let connected = false;

/** The ssh:// address of the engine, when it is one (set directly, or kept by a connected parent). */
export function remoteEngineAddress(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.DOCKER_HOST?.startsWith("ssh://")) return env.DOCKER_HOST;
  return env[REMOTE_ENGINE_VAR] || undefined;
}

/** `ssh` options naming the server: -F, -p and user@host. */
export function sshTarget(url: string): string[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new VisibleError(`DOCKER_HOST=${url} is not an address`, {
      exitCode: 4,
      details: ["  hint: write it as ssh://user@host or ssh://user@host:2222"],
    });
  }
  if (!u.hostname || (u.pathname && u.pathname !== "/"))
    throw new VisibleError(`DOCKER_HOST=${url}: expected ssh://user@host[:port] with no path`, {
      exitCode: 4,
      details: ["  hint: the engine's socket on the server is the one `docker` uses there (its own DOCKER_HOST)"],
    });
  const config = process.env.PLATFORM_SSH_CONFIG;
  return [
    ...(config ? ["-F", config] : []),
    ...(u.port ? ["-p", u.port] : []),
    u.username ? `${decodeURIComponent(u.username)}@${u.hostname}` : u.hostname,
  ];
}

function unixPath(dockerHost: string | undefined): string | undefined {
  return dockerHost?.startsWith("unix://") ? dockerHost.slice("unix://".length) : undefined;
}

/**
 * Reserves a session on a master connection of this process (opened on first use, closed when
 * the process exits); the caller's `ssh` child gives it back when it exits (overSsh).
 */
async function reserveSession(url: string): Promise<Master> {
  for (;;) {
    const free = ready.find((m) => m.sessions < SESSIONS_PER_MASTER);
    if (free) {
      free.sessions++;
      return free;
    }
    starting ??= startMaster(url)
      .then((m) => {
        ready.push(m);
      })
      .finally(() => {
        starting = undefined;
      });
    await starting;
  }
}

async function startMaster(url: string): Promise<Master> {
  const target = sshTarget(url);
  const dir = mkdtempSync(join(tmpdir(), "platform-ssh-"));
  const control = join(dir, "c");
  const errFile = join(dir, "ssh.err");
  const err = openSync(errFile, "w");
  const interactive = process.stdin.isTTY && !process.env.CI;
  const child = spawn(
    "ssh",
    [
      ...["-o", "ControlMaster=yes", "-o", `ControlPath=${control}`, "-o", "ControlPersist=no"],
      ...["-o", "ServerAliveInterval=15", "-o", "ConnectTimeout=20", ...(interactive ? [] : ["-o", "BatchMode=yes"])],
      ...["-N", "-T", ...target],
    ],
    { stdio: ["ignore", "ignore", err] },
  );
  closeSync(err);
  const cleanup = () => {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForMaster(child, control, target, () => readFileSync(errFile, "utf8"));
    checkServerEngine(control, target, url);
  } catch (e) {
    cleanup();
    throw e;
  }
  child.unref();
  process.once("exit", cleanup);
  return { url, target, control, sessions: 0 };
}

/**
 * Makes DOCKER_HOST usable by everything in this process and its children: a no-op unless the
 * engine is reached over SSH and not yet through a live socket. Throws a VisibleError that says
 * what SSH or the server answered.
 */
export async function connectEngine(): Promise<void> {
  const url = remoteEngineAddress();
  if (!url || connected) return;
  const inherited = unixPath(process.env.DOCKER_HOST);
  if (process.env[REMOTE_ENGINE_VAR] && inherited && existsSync(inherited)) return;
  const m = await reserveSession(url);
  m.sessions--;
  const socket = join(dirname(m.control), "docker.sock");
  await serveForward(socket, async () => overSsh(await reserveSession(url), [], ["docker", "system", "dial-stdio"]));
  connected = true;
  process.env[REMOTE_ENGINE_VAR] = url;
  process.env.DOCKER_HOST = `unix://${socket}`;
}

/**
 * The environment for a process that outlives this one (Studio in the background): the ssh://
 * address, so it connects on its own, not this process's socket, gone when this one exits.
 */
export function detachedEngineEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const url = remoteEngineAddress(env);
  if (!url) return env;
  const { [REMOTE_ENGINE_VAR]: _kept, ...rest } = env;
  return { ...rest, DOCKER_HOST: url };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Waits (bounded) until the master connection is up: its control socket answers `-O check`. */
async function waitForMaster(master: ChildProcess, control: string, target: string[], stderr: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (master.exitCode !== null) break;
    if (existsSync(control) && spawnSync("ssh", ["-S", control, "-O", "check", ...target], { stdio: "ignore" }).status === 0) return;
    await sleep(50);
  }
  const said = stderr().trim();
  throw new VisibleError(`cannot reach the engine's server over SSH (${target.at(-1)})${said ? `: ${said}` : ""}`, {
    exitCode: 4,
    details: [
      `  hint: check that \`ssh ${target.join(" ")} docker info\` works from this machine (a key the server accepts, its host key in known_hosts)`,
    ],
  });
}

/** The server answers for its engine, or the deploy stops here with what it said. */
function checkServerEngine(control: string, target: string[], url: string): void {
  const r = spawnSync("ssh", ["-S", control, ...target, "docker", "version", "--format", "{{.Server.Version}}"], {
    encoding: "utf8",
    timeout: 30_000,
  });
  if (r.status !== 0)
    throw new VisibleError(`the server of DOCKER_HOST=${url} has no Docker engine this user can use: ${(r.stderr || r.stdout).trim()}`, {
      exitCode: 4,
      details: [
        "  hint: install Docker there (apt-get install docker.io) and let the SSH user use it (root, or a member of the docker group)",
      ],
    });
}

/** An `ssh` session over a master connection (a command on the server, or `-W` forwarding), its stdio the caller's stream. */
function overSsh(m: Master, options: string[], command: string[]): ChildProcess {
  const child = spawn("ssh", ["-S", m.control, "-o", "ControlMaster=no", "-T", ...options, ...m.target, ...command], {
    stdio: ["pipe", "pipe", "ignore"],
  });
  child.once("exit", () => m.sessions--);
  return child;
}

/** A local listener whose every connection is piped through a new `ssh` session; closed with this process. */
function serveForward(listenOn: string | { host: string; port: number }, open: () => Promise<ChildProcess>): Promise<Server> {
  const server = createServer(async (client: Socket) => {
    client.pause();
    client.on("error", () => client.destroy());
    const child = await open().catch(() => undefined);
    if (!child) {
      client.destroy();
      return;
    }
    const end = () => {
      client.destroy();
      if (child.exitCode === null) child.kill();
    };
    client.pipe(child.stdin!);
    child.stdout!.pipe(client);
    client.on("error", end);
    client.on("close", end);
    child.on("exit", end);
    child.stdin!.on("error", end);
  });
  server.unref();
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    if (typeof listenOn === "string") server.listen(listenOn, () => resolve(server));
    else server.listen(listenOn.port, listenOn.host, () => resolve(server));
  });
}

const forwards = new Map<number, Promise<number>>();

/**
 * Where this machine reaches a port the engine published on its host's 127.0.0.1: that port
 * itself for a local engine, a local port forwarded over SSH (`ssh -W`) to the server's for one
 * over SSH, and none for a tcp:// engine (its host's loopback is out of reach from here).
 */
export async function engineLoopbackPort(port: number): Promise<number | undefined> {
  const url = remoteEngineAddress();
  if (!url) return process.env.DOCKER_HOST?.startsWith("tcp://") ? undefined : port;
  let local = forwards.get(port);
  if (!local) {
    local = serveForward({ host: "127.0.0.1", port: 0 }, async () =>
      overSsh(await reserveSession(url), ["-W", `127.0.0.1:${port}`], []),
    ).then((s) => (s.address() as { port: number }).port);
    forwards.set(port, local);
    local.catch(() => forwards.delete(port));
  }
  return local;
}
