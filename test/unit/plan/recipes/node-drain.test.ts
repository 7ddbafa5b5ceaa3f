/**
 * The platform's graceful stop for Node servers (images/node/platform-drain.cjs), run for real:
 * a Node server with the preload, a kept-alive client, SIGTERM.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { Agent, request } from "node:http";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { buildNodeDrainStep, buildNodeOptionsEnv, NODE_DRAIN_PATH } from "../../../../src/plan/recipes/node-drain.js";

const PRELOAD = fileURLToPath(new URL("../../../../images/node/platform-drain.cjs", import.meta.url));

/**
 * A server like Next.js's: on SIGTERM it calls server.close() and exits when that is done.
 * GET /<ms> answers after that long; GET /stream/<ms> sends its headers at once, the rest later.
 */
const HANDLER = `(req, res) => {
  const stream = req.url.startsWith("/stream/");
  if (stream) { res.writeHead(200); res.write("a"); }
  setTimeout(() => res.end("ok"), Number(req.url.split("/").pop()) || 0);
}`;
const NEXT_LIKE = `
const server = require("node:http").createServer(${HANDLER});
process.on("SIGTERM", () => server.close(() => { console.log("closed"); process.exit(0); }));
server.listen(0, "127.0.0.1", () => console.log("port " + server.address().port));`;
/** A server with no SIGTERM handler of its own (Node's default: die at once). */
const PLAIN = `
const server = require("node:http").createServer(${HANDLER});
server.listen(0, "127.0.0.1", () => console.log("port " + server.address().port));`;

let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill("SIGKILL");
  child = undefined;
});

async function start(code: string, preload = true): Promise<{ port: number; lines: string[] }> {
  child = spawn(process.execPath, [...(preload ? ["--require", PRELOAD] : []), "-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  const lines: string[] = [];
  const port = await new Promise<number>((resolve) => {
    child!.stdout!.on("data", (d: Buffer) => {
      for (const l of d.toString().split("\n").filter(Boolean)) {
        lines.push(l);
        const m = /^port (\d+)$/.exec(l);
        if (m) resolve(Number(m[1]));
      }
    });
  });
  return { port, lines };
}

function get(port: number, agent: Agent, path = "/0"): Promise<{ connection: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    request({ host: "127.0.0.1", port, path, agent }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ connection: res.headers.connection, body }));
    })
      .on("error", reject)
      .end();
  });
}

describe("the platform's drain for Node servers", () => {
  it("after SIGTERM, a request not yet answered gets Connection: close, and the server finishes", async () => {
    const { port, lines } = await start(NEXT_LIKE);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    expect((await get(port, agent)).connection).toBe("keep-alive");
    const inFlight = get(port, agent, "/300");
    await new Promise((r) => setTimeout(r, 100));
    child!.kill("SIGTERM");
    expect(await inFlight).toEqual({ connection: "close", body: "ok" });
    const [code] = await once(child!, "exit");
    expect(code).toBe(0);
    expect(lines).toContain("closed");
    agent.destroy();
  }, 20_000);

  it("a response whose headers said keep-alive before SIGTERM: the next request on that connection gets Connection: close", async () => {
    const { port } = await start(NEXT_LIKE);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const streaming = get(port, agent, "/stream/300");
    await new Promise((r) => setTimeout(r, 100));
    child!.kill("SIGTERM");
    expect(await streaming).toEqual({ connection: "keep-alive", body: "aok" });
    // The edge sends its next request on the same connection: answered, and the connection closed.
    expect(await get(port, agent)).toEqual({ connection: "close", body: "ok" });
    const [code] = await once(child!, "exit");
    expect(code).toBe(0);
    agent.destroy();
  }, 20_000);

  it("without the preload the same server keeps the connection alive after SIGTERM (what the drain is for)", async () => {
    const { port } = await start(NEXT_LIKE, false);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const inFlight = get(port, agent, "/300");
    await new Promise((r) => setTimeout(r, 100));
    child!.kill("SIGTERM");
    expect((await inFlight).connection).toBe("keep-alive");
    expect((await get(port, agent)).connection).toBe("keep-alive");
    agent.destroy();
  }, 20_000);

  it("an app with no SIGTERM handler finishes the request it is serving, then exits 0", async () => {
    const { port } = await start(PLAIN);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    await get(port, agent);
    const inFlight = get(port, agent, "/400");
    await new Promise((r) => setTimeout(r, 100));
    child!.kill("SIGTERM");
    expect((await inFlight).connection).toBe("close");
    const [code, signal] = await once(child!, "exit");
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    agent.destroy();
  }, 20_000);

  it("the image writes the preload and loads it first in NODE_OPTIONS", () => {
    expect(buildNodeDrainStep()).toMatch(new RegExp(`^RUN mkdir -p /opt/platform && printf '%s\\\\n' .* > ${NODE_DRAIN_PATH}$`));
    expect(buildNodeDrainStep()).toContain("http.server.request.start");
    expect(buildNodeOptionsEnv(["/x.cjs"])).toBe(`ENV NODE_OPTIONS="--require ${NODE_DRAIN_PATH} --require /x.cjs"`);
  });
});
