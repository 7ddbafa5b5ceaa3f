import { execFile } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isMissingBinary, isRefused, judgeAnswer, PROBE_CLIENTS } from "../../../../src/provider/docker/http-probe.js";

/** Health probes from inside the container: the commands and how their answers read. */
const client = (bin: string) => PROBE_CLIENTS.find((c) => c.bin === bin)!;

describe("in-container HTTP probes", () => {
  it("tries python3, node, bun, curl, wget in that order", () => {
    expect(PROBE_CLIENTS.map((c) => c.bin)).toEqual(["python3", "node", "bun", "curl", "wget"]);
    expect(client("curl").command("http://172.18.0.2:8080/health")).toEqual([
      "curl",
      "-sS",
      "-o",
      "/dev/null",
      "-w",
      "%{http_code}",
      "--max-time",
      "2",
      "http://172.18.0.2:8080/health",
    ]);
    expect(client("python3").command('http://h:1/p?a="b"').slice(0, 2)).toEqual(["python3", "-S"]);
    expect(client("python3").command('http://h:1/p?a="b"')[3]).toContain('socket.create_connection(("h", 1), 2)');
    expect(client("node").command("http://h:1/")[2]).toContain('require("http").get("http://h:1/",{timeout:2000');
  });
  it("reads a status line, or the error", () => {
    expect(client("python3").parse("302\n", 0)).toEqual({ status: 302 });
    expect(client("node").parse("ERR connect ECONNREFUSED 172.18.0.4:8080\n", 0)).toEqual({
      error: "connect ECONNREFUSED 172.18.0.4:8080",
    });
    expect(client("curl").parse("404", 0)).toEqual({ status: 404 });
    expect(client("curl").parse("curl: (7) Failed to connect to 172.18.0.2 port 8080: Connection refused\n000", 7)).toEqual({
      error: "Failed to connect to 172.18.0.2 port 8080: Connection refused",
    });
    expect(client("wget").parse("  HTTP/1.1 503 Service Unavailable\n  Content-Length: 0\n", 8)).toEqual({ status: 503 });
    expect(client("wget").parse("wget: can't connect to remote host (172.18.0.2): Connection refused\n", 1)).toEqual({
      error: "wget: can't connect to remote host (172.18.0.2): Connection refused",
    });
  });
  it("2xx and 3xx pass, unless any answer counts; errors name the path", () => {
    expect(judgeAnswer({ status: 204 }, "/health", false)).toBeUndefined();
    expect(judgeAnswer({ status: 301 }, "/health", false)).toBeUndefined();
    expect(judgeAnswer({ status: 500 }, "/health", false)).toBe("GET /health answered 500");
    expect(judgeAnswer({ status: 500 }, "/", true)).toBeUndefined();
    expect(judgeAnswer({ error: "timed out" }, "/", true)).toBe("GET / failed: timed out");
  });
  it("knows a missing binary (the engine's 126) from a failing probe, and a refused connection", () => {
    expect(
      isMissingBinary(
        126,
        'OCI runtime exec failed: exec failed: unable to start container process: exec: "python3": executable file not found in $PATH: unknown',
      ),
    ).toBe(true);
    expect(isMissingBinary(1, "Traceback ...")).toBe(false);
    expect(isRefused("GET / failed: [Errno 111] Connection refused")).toBe(true);
    expect(isRefused("GET / failed: timed out")).toBe(false);
  });
});

/** The Python probe for real (python3 on this machine), against a server on 127.0.0.1. */
describe("the python3 probe, run", () => {
  let server: Server;
  let port = 0;
  const seen: { url?: string; host?: string }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url, host: req.headers.host });
      if (req.url === "/moved") res.writeHead(302, { location: "/elsewhere" }).end();
      else if (req.url?.startsWith("/broken")) res.writeHead(503).end("down");
      else res.writeHead(200).end("ok");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  const run = async (url: string) => {
    const [bin, ...args] = client("python3").command(url);
    const { stdout } = await promisify(execFile)(bin!, args);
    return client("python3").parse(stdout, 0);
  };

  it("reads the first answer's status, never following a redirect, with the path, query and Host sent", async () => {
    expect(await run(`http://127.0.0.1:${port}/health`)).toEqual({ status: 200 });
    expect(await run(`http://127.0.0.1:${port}/moved`)).toEqual({ status: 302 });
    expect(await run(`http://127.0.0.1:${port}/broken?x="1"`)).toEqual({ status: 503 });
    expect(seen.map((s) => s.url)).toEqual(["/health", "/moved", "/broken?x=%221%22"]);
    expect(seen[0]!.host).toBe(`127.0.0.1:${port}`);
  });
  it("says a refused connection in words isRefused knows", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const free = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const answer = await run(`http://127.0.0.1:${free}/health`);
    expect("error" in answer && isRefused(answer.error)).toBe(true);
  });
});
