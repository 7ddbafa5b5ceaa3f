import { spawn, spawnSync } from "node:child_process";
import { ExitCode, VisibleError } from "../errors.js";
import { requireEngine, runningContainer } from "../runtime/docker.js";
import { postgresAccess } from "../runtime/inspect.js";
import { openTunnel } from "../runtime/tunnel.js";
import { resolveStack } from "./context.js";
import { printJson } from "./render.js";
import type { StackOptions } from "./stack-options.js";

export interface DbConnectOptions extends StackOptions {
  tunnelOnly?: boolean;
}

const hasLocalPsql = () => spawnSync("psql", ["--version"], { stdio: "ignore" }).status === 0;

/**
 * `platform db connect SERVICE`: psql through a local tunnel (a helper container on the
 * stack network, published on 127.0.0.1 only). Without a local psql, the database image's
 * own psql runs in a container on the host network, through the same tunnel.
 */
export async function runDbConnect(service: string, o: DbConnectOptions): Promise<void> {
  const t = await resolveStack(o);
  const svc = t.config.services[service];
  if (!svc)
    throw new VisibleError(`no service "${service}" in ${t.configFile}; services: ${Object.keys(t.config.services).join(", ")}`, {
      exitCode: ExitCode.usage,
    });
  if (svc.type !== "postgres")
    throw new VisibleError(`${service} is a ${svc.type} service: db connect needs a postgres service`, { exitCode: ExitCode.usage });
  await requireEngine();
  const c = await runningContainer(t.project, t.env, service);
  if (!c)
    throw new VisibleError(`${service} is not running in ${t.project} (${t.env}): run platform deploy (platform status says why)`, {
      exitCode: ExitCode.failed,
    });
  const access = await postgresAccess(c.containerId, service);
  if (!access) throw new VisibleError(`${service}: its container has no POSTGRES_PASSWORD`, { exitCode: ExitCode.failed });
  const tunnel = await openTunnel(access.network, access.alias, 5432, `cli-${process.pid}`);
  // Nothing local keeps the process alive while the tunnel (a container) is open: this does.
  const keepAlive = setInterval(() => undefined, 60_000);
  const closed = new Promise<void>((resolve) => {
    const close = () =>
      void tunnel.close().finally(() => {
        clearInterval(keepAlive);
        resolve();
      });
    process.once("SIGINT", close);
    process.once("SIGTERM", close);
    if (!o.tunnelOnly) connectPsql(tunnel, access, c.image).then(close, close);
  });
  if (o.tunnelOnly) {
    const url = `postgresql://${encodeURIComponent(access.user)}@${tunnel.host}:${tunnel.port}/${encodeURIComponent(access.database)}`;
    if (o.json) printJson({ host: tunnel.host, port: tunnel.port, user: access.user, database: access.database, url });
    else {
      process.stdout.write(`Tunnel to ${service} on ${tunnel.host}:${tunnel.port} (Ctrl-C closes it)\n`);
      process.stdout.write(
        `  ${url}\n  password: Studio's Database page shows it on request (platform db connect ${service} uses it without showing it)\n`,
      );
    }
  }
  await closed;
}

function connectPsql(
  tunnel: { host: string; port: number },
  a: { user: string; password: string; database: string },
  dbImage: string,
): Promise<number> {
  // The password goes through the environment, never the command line.
  const env = { ...process.env, PGPASSWORD: a.password };
  const args = ["-h", tunnel.host, "-p", String(tunnel.port), "-U", a.user, a.database];
  const child = hasLocalPsql()
    ? spawn("psql", args, { stdio: "inherit", env })
    : spawn(
        "docker",
        ["run", "--rm", process.stdin.isTTY ? "-it" : "-i", "--network", "host", "-e", "PGPASSWORD", dbImage, "psql", ...args],
        { stdio: "inherit", env },
      );
  return new Promise((resolve) =>
    child.on("close", (code) => {
      process.exitCode = code ?? 1;
      resolve(code ?? 1);
    }),
  );
}
