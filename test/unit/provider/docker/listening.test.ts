import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { isListening, isLocalContainerProcess, listensOn, portsListening } from "../../../../src/provider/docker/listening.js";

const TABLE = [
  "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
  "   0: 0100007F:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0000000000000000 100 0 0 10 0",
  "   1: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2 1 0000000000000000 100 0 0 10 0",
  "   2: 0A000002:1F92 0A000003:D3A4 01 00000000:00000000 00:00000000 00000000     0        0 3 1 0000000000000000 20 4 30 10 -1",
].join("\n");

describe("a container's listening sockets, read from the host", () => {
  it("finds a LISTEN socket by port on any address, and only in state LISTEN", () => {
    expect(listensOn(TABLE, "1F90")).toBe(true); // 0.0.0.0:8080
    expect(listensOn(TABLE, "1F91")).toBe(true); // 127.0.0.1:8081 (the probe then says loopback only)
    expect(listensOn(TABLE, "1F92")).toBe(false); // an established connection, not a listener
    expect(listensOn(TABLE, "0050")).toBe(false);
  });

  it("cannot tell for a process that is not the container's (another machine's pid, no such process)", async () => {
    expect(await isLocalContainerProcess("0123456789ab", process.pid)).toBe(false);
    expect(await isListening(2 ** 30, 80)).toBeUndefined();
  });

  it("reads this machine's own sockets when the process is the one named", async () => {
    // A process's cgroup names it: give isLocalContainerProcess what this process's cgroup file holds.
    const { readFileSync } = await import("node:fs");
    const cgroup = readFileSync("/proc/self/cgroup", "utf8").trim().split("\n")[0]!.split(":").pop()!;
    expect(await isLocalContainerProcess(cgroup, process.pid)).toBe(true);
    const server = createServer().listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    const port = (server.address() as { port: number }).port;
    expect(await isListening(process.pid, port)).toBe(true);
    server.close();
    await new Promise((r) => server.once("close", r));
    expect(await isListening(process.pid, port)).toBe(false);
  });
});

describe("portsListening", () => {
  it("the ports of sockets in state LISTEN, whatever their address (v4 or v6 table), but Docker's DNS server's (127.0.0.11)", () => {
    const v4 = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:1F40 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1 1 0000000000000000 100 0 0 10 0
   1: 0100007F:13D8 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 2 1 0000000000000000 100 0 0 10 0
   2: 0A0000F3:1F40 0A0000F2:D2C4 01 00000000:00000000 00:00000000 00000000  1000        0 3 1 0000000000000000 100 0 0 10 0
   3: 0B00007F:8EE9 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4 1 0000000000000000 100 0 0 10 0`;
    expect(portsListening(v4)).toEqual([8000, 5080]);
    const v6 = `  sl  local_address                         remote_address                        st
   0: 00000000000000000000000000000000:1F90 00000000000000000000000000000000:0000 0A`;
    expect(portsListening(v6)).toEqual([8080]);
  });
});
