// A slow client cannot hold the public edge's connections (issue: hardening for the internet).
// The edge's real public configuration (buildPublicEdgeCaddyfile) runs in a throwaway Caddy
// container whose ports are published on 127.0.0.1 only; a slowloris-style client opens many
// connections and dribbles request headers one byte at a time, never finishing them. Measured:
// - while they hang, an ordinary request is answered at once (Go's server has no connection
//   pool to exhaust: each connection is a goroutine);
// - each slow connection is closed by the edge once `read_header` (10 s) has passed, and not before.
// Every connection goes to 127.0.0.1; the attack is bounded in connections and in time.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseImages } from "../../src/home/images.js";
import { buildPublicEdgeCaddyfile } from "../../src/provider/docker/edge-public-config.js";
import { assertFree, docker, sleep, waitFor } from "./helpers/acme.js";

const PORTS = { http: 18680, https: 18643 };
const CONTAINER = `plt-test-slowloris-${process.pid}-${randomBytes(3).toString("hex")}`;
const SLOW_CONNECTIONS = 300;
const HEADER_TIMEOUT_MS = 10_000;

/** One plain HTTP request on 127.0.0.1 to the edge's port 80: its status line and how long it took. */
function quickRequest(): Promise<{ status: string; ms: number }> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const s = connect(PORTS.http, "127.0.0.1");
    let data = "";
    s.setTimeout(5000, () => s.destroy(new Error("no answer in 5 s")));
    s.on("connect", () => s.write("GET /x HTTP/1.1\r\nHost: app.apps.example.test\r\nConnection: close\r\n\r\n"));
    s.on("data", (c) => {
      data += c;
    });
    s.on("close", () => resolve({ status: data.split("\r\n")[0] ?? "", ms: Date.now() - t0 }));
    s.on("error", reject);
  });
}

/** A connection that sends an unfinished request, one header byte every `everyMs`; resolves with when the edge closed it. */
function slowConnection(everyMs: number, giveUpMs: number): { socket: Socket; closedAfter: Promise<number> } {
  const t0 = Date.now();
  const socket = connect(PORTS.http, "127.0.0.1");
  const header = `GET / HTTP/1.1\r\nHost: app.apps.example.test\r\nX-Slow: ${"a".repeat(200)}`;
  let i = 0;
  const timer = setInterval(() => {
    if (!socket.destroyed && i < header.length) socket.write(header[i++] as string);
  }, everyMs);
  const closedAfter = new Promise<number>((resolve) => {
    const stop = setTimeout(() => socket.destroy(), giveUpMs);
    socket.on("close", () => {
      clearInterval(timer);
      clearTimeout(stop);
      resolve(Date.now() - t0);
    });
    socket.on("error", () => undefined);
  });
  return { socket, closedAfter };
}

describe("public edge: a slow client cannot hold its connections", () => {
  let dir: string;

  beforeAll(async () => {
    await assertFree("127.0.0.1", PORTS.http, "the test edge's HTTP port");
    await assertFree("127.0.0.1", PORTS.https, "the test edge's HTTPS port");
    dir = mkdtempSync(join(tmpdir(), "plt-slowloris-"));
    // The ACME CA is never reached: no name here is in the allow-list, so nothing is ordered.
    const caddyfile = buildPublicEdgeCaddyfile(
      "apps.example.test",
      { ca: "https://127.0.0.1:9/dir", email: "ops@example.test" },
      PORTS.https,
    );
    writeFileSync(join(dir, "Caddyfile"), caddyfile);
    const image = baseImages().caddy;
    // biome-ignore format: one docker option per line
    const started = await docker([
      "run", "-d", "--name", CONTAINER, "--memory", "256m", "--pids-limit", "256",
      "-p", `127.0.0.1:${PORTS.http}:80`, "-p", `127.0.0.1:${PORTS.https}:443`,
      "-v", `${join(dir, "Caddyfile")}:/etc/caddy/Caddyfile:ro`,
      image, "caddy", "run", "--adapter", "caddyfile", "--config", "/etc/caddy/Caddyfile",
    ]);
    if (started.code !== 0) throw new Error(`docker run ${image} failed: ${started.stderr}`);
    await waitFor("the edge to answer", 50, 200, async () =>
      (await quickRequest().catch(() => ({ status: "" }))).status.startsWith("HTTP/1.1 308"),
    );
  }, 60_000);

  afterAll(async () => {
    await docker(["rm", "-f", "-v", CONTAINER]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`serves an ordinary request while ${SLOW_CONNECTIONS} slow clients hang, and closes each slow one after the header timeout`, async () => {
    // A byte every 500 ms: never idle long enough for a per-read timeout, never finishing the header.
    const slow = Array.from({ length: SLOW_CONNECTIONS }, () => slowConnection(500, HEADER_TIMEOUT_MS + 15_000));
    await sleep(3000);
    const during = [];
    for (let i = 0; i < 5; i++) during.push(await quickRequest());
    console.log(`ordinary requests during the attack: ${during.map((r) => `${r.ms} ms`).join(", ")}`);
    for (const r of during) {
      expect(r.status).toBe("HTTP/1.1 308 Permanent Redirect");
      expect(r.ms).toBeLessThan(1000);
    }
    const closed = await Promise.all(slow.map((s) => s.closedAfter));
    const sorted = [...closed].sort((a, b) => a - b);
    console.log(`slow connections closed after ${sorted[0]} to ${sorted[sorted.length - 1]} ms (header timeout ${HEADER_TIMEOUT_MS} ms)`);
    // Closed by the edge at its read_header timeout: not before it, and well before our own give-up.
    expect(sorted[0]).toBeGreaterThanOrEqual(HEADER_TIMEOUT_MS - 500);
    expect(sorted[sorted.length - 1]).toBeLessThan(HEADER_TIMEOUT_MS + 10_000);
  }, 60_000);
});
