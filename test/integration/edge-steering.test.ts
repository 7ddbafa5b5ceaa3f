import { execFileSync } from "node:child_process";
import { get } from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { baseImages } from "../../src/home/images.js";
import { freePort } from "./helpers/env.js";

/**
 * The set-up's Caddy steers a shared port to the newest edge (scripts/setup/go/caddy,
 * caddy-listen-steer-reuseport.patch): a new edge started beside the old one on the same port
 * (host network, SO_REUSEPORT, src/provider/docker/edge.ts) takes every new connection from its
 * bind on, so the old one has none queued when it closes its socket (Linux resets those). Without
 * the patch the kernel splits new connections between the two by hash, about half each.
 * Bare Caddys of the set-up's image on a free port of 127.0.0.1, each answering with its name;
 * every request on a connection of its own. TEST_CADDY_IMAGE runs another image (one built
 * without the patch fails here: {second: 24, first: 16}).
 */
const image = process.env.TEST_CADDY_IMAGE ?? baseImages().caddy;
const prefix = `plt-test-steer-${process.pid}-`;
const docker = (...args: string[]) => execFileSync("docker", args, { stdio: ["ignore", "pipe", "pipe"] }).toString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A Caddy in the host's network on 127.0.0.1:port that answers its name; returns once it serves. */
async function startCaddy(name: string, port: number): Promise<void> {
  const caddyfile = `{\n\tadmin off\n\tdefault_bind 127.0.0.1\n}\nhttp://:${port} {\n\trespond "${name}"\n}\n`;
  docker(
    "run",
    "-d",
    "--name",
    prefix + name,
    "--network",
    "host",
    "-e",
    `CADDYFILE=${caddyfile}`,
    "--entrypoint",
    "sh",
    image,
    "-c",
    'printf "%s" "$CADDYFILE" > /tmp/Caddyfile && exec caddy run --adapter caddyfile --config /tmp/Caddyfile',
  );
  for (const end = Date.now() + 30_000; Date.now() < end; await sleep(100)) {
    const log = execFileSync("sh", ["-c", `docker logs ${prefix}${name} 2>&1`]).toString();
    if (log.includes("serving initial configuration")) {
      expect(log, `${name}'s log`).not.toMatch(/steering new connections/);
      return;
    }
  }
  throw new Error(`${name} did not serve within 30 s`);
}

/** Who answers `count` requests, each on a new connection: name -> how many. */
async function answers(port: number, count: number): Promise<Record<string, number>> {
  const seen: Record<string, number> = {};
  for (let i = 0; i < count; i++) {
    const name = await new Promise<string>((resolve, reject) => {
      get({ host: "127.0.0.1", port, path: "/", agent: false }, (res) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve(body));
      }).on("error", reject);
    });
    seen[name] = (seen[name] ?? 0) + 1;
  }
  return seen;
}

describe("the set-up's Caddy: a new edge on a shared port takes every new connection from its bind", () => {
  afterAll(() => {
    execFileSync("sh", ["-c", `docker rm -f $(docker ps -aq --filter name=^${prefix}) >/dev/null 2>&1 || true`]);
  });

  it("old alone; new beside it takes them all; the old one leaves; a third takes them all from the second", async () => {
    const port = await freePort();
    await startCaddy("first", port);
    expect(await answers(port, 10)).toEqual({ first: 10 });
    await startCaddy("second", port);
    // Without the steering about half of these would reach the first edge (p = 2^-40 of none).
    expect(await answers(port, 40)).toEqual({ second: 40 });
    docker("stop", "-t", "5", `${prefix}first`);
    expect(await answers(port, 10)).toEqual({ second: 10 });
    // The next hand-over: the survivor is the group's first socket again, the newcomer the second.
    await startCaddy("third", port);
    expect(await answers(port, 40)).toEqual({ third: 40 });
    docker("stop", "-t", "5", `${prefix}second`);
    expect(await answers(port, 10)).toEqual({ third: 10 });
  }, 120_000);
});
