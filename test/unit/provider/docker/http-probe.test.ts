import { describe, expect, it } from "vitest";
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
    expect(client("python3").command('http://h:1/p?a="b"')[2]).toContain('open("http://h:1/p?a=\\"b\\"", timeout=2)');
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
