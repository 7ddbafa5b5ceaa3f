import { mkdtempSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FRONT_DOOR } from "../../../src/test-cluster/layout.js";
import { makeDirectoryTls, type Pebble, startPebble } from "./acme.js";
import { type CliResult, runCli } from "./cli.js";
import { freshBackend, unique } from "./env.js";
import { createInternet, destroyInternet, type Internet } from "./internet.js";
import { clusterUp } from "./kubernetes.js";

/**
 * The test cluster's front door (Traefik) with Pebble as its ACME CA: Pebble's directory on a
 * veth address of its own (helpers/internet.ts), its HTTPS signed by a throwaway CA given as
 * --acme-ca-root; challtestsrv answers 127.0.0.1 for every name, and Pebble validates HTTP-01
 * on the front door's web port. Filled as it starts, so that `stop` cleans up after a start
 * that failed half-way.
 */
export interface FrontDoorCa {
  net?: Internet;
  pebble?: Pebble;
}

/**
 * A front-door test's project: its name and namespace, a state backend of its own, a work
 * directory (the fullstack example goes in `dir`), and the CLI run there with `env` (the test
 * fills it once its DNS is up).
 */
export function frontDoorProject(prefix: string) {
  const project = unique(prefix);
  const backend = freshBackend();
  const work = mkdtempSync(join(tmpdir(), `platform-${prefix}-`));
  const dir = join(work, "fullstack");
  const env: Record<string, string> = {};
  const cli = (...args: string[]): Promise<CliResult> => runCli(args, { cwd: dir, env: { ...backend, ...env } });
  return { project, namespace: `${project}-preview`, backend, work, dir, env, cli };
}

export async function startFrontDoorCa(ca: FrontDoorCa, work: string): Promise<{ net: Internet; pebble: Pebble }> {
  const { net, pebble } = await startFrontDoorPebble(ca, work);
  await clusterUp(["--acme-ca", pebble.directoryByAddress, "--acme-ca-root", pebble.tlsCa, "--acme-email", "ops@apps.test"]);
  return { net, pebble };
}

/**
 * Pebble and its DNS as the front door's CA sees them (every name answers the front door's
 * address; HTTP-01 on its web port), without giving the front door the CA: for an ACME client
 * in the cluster (cert-manager). Its directory's HTTPS is signed by `pebble.tlsCa`.
 */
export async function startFrontDoorPebble(ca: FrontDoorCa, work: string): Promise<{ net: Internet; pebble: Pebble }> {
  const net = await createInternet();
  ca.net = net;
  const tls = await makeDirectoryTls(work, net.serverAddress);
  const pebble = await startPebble({
    serverAddress: net.serverAddress,
    httpPort: FRONT_DOOR.httpPort,
    tlsPort: FRONT_DOOR.httpsPort,
    tls,
    dir: work,
    answer: FRONT_DOOR.address,
  });
  ca.pebble = pebble;
  return { net, pebble };
}

/** The front door forgets the CA (its Pebble is about to go): Traefik restarts without ACME; then Pebble and its network go. */
export async function stopFrontDoorCa(ca: FrontDoorCa): Promise<void> {
  await clusterUp(["--acme-off"]).catch((e) => console.warn(`cluster up --acme-off: ${(e as Error).message}`));
  ca.pebble?.stop();
  if (ca.net) await destroyInternet(ca.net);
}

/** A plain-HTTP GET on the front door's web entry point with the given Host. */
export function frontDoorHttpGet(host: string, path = "/"): Promise<{ status: number; location?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: FRONT_DOOR.address, port: FRONT_DOOR.httpPort, path, headers: { host }, timeout: 10_000 }, (res) => {
      let body = "";
      res.on("data", (d) => {
        body += d;
      });
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, body, ...(res.headers.location ? { location: res.headers.location } : {}) }),
      );
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end();
  });
}
