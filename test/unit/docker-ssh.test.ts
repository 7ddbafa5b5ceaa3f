import { afterEach, describe, expect, it } from "vitest";
import { detachedEngineEnv, engineLoopbackPort, REMOTE_ENGINE_VAR, remoteEngineAddress, sshTarget } from "../../src/docker-ssh.js";
import { serverAddresses } from "../../src/engine/dns-check.js";

const saved = { ...process.env };
afterEach(() => {
  for (const k of ["DOCKER_HOST", REMOTE_ENGINE_VAR, "PLATFORM_SSH_CONFIG", "PLATFORM_PUBLIC_ADDRESS"]) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

describe("an engine over SSH (DOCKER_HOST=ssh://)", () => {
  it("is recognised directly, or through the address a connected parent kept", () => {
    expect(remoteEngineAddress({ DOCKER_HOST: "ssh://deploy@203.0.113.10" })).toBe("ssh://deploy@203.0.113.10");
    expect(remoteEngineAddress({ DOCKER_HOST: "unix:///tmp/platform-ssh-x/docker.sock", [REMOTE_ENGINE_VAR]: "ssh://a@b" })).toBe(
      "ssh://a@b",
    );
    expect(remoteEngineAddress({ DOCKER_HOST: "unix:///var/run/docker.sock" })).toBeUndefined();
    expect(remoteEngineAddress({ DOCKER_HOST: "tcp://10.0.0.1:2375" })).toBeUndefined();
  });

  it("names the server to ssh: user, port, and an ssh_config of the user's choice", () => {
    expect(sshTarget("ssh://deploy@203.0.113.10")).toEqual(["deploy@203.0.113.10"]);
    expect(sshTarget("ssh://server.example.com:2222")).toEqual(["-p", "2222", "server.example.com"]);
    process.env.PLATFORM_SSH_CONFIG = "/etc/platform/ssh_config";
    expect(sshTarget("ssh://root@h")).toEqual(["-F", "/etc/platform/ssh_config", "root@h"]);
  });

  it("refuses an address with a path, as Docker does, saying how to write it", () => {
    expect(() => sshTarget("ssh://root@h/var/run/docker.sock")).toThrow(/expected ssh:\/\/user@host\[:port\] with no path/);
  });

  it("gives a detached child the ssh:// address, never the parent's socket", () => {
    const env = { DOCKER_HOST: "unix:///tmp/platform-ssh-x/docker.sock", [REMOTE_ENGINE_VAR]: "ssh://a@b", PATH: "/bin" };
    expect(detachedEngineEnv(env)).toEqual({ DOCKER_HOST: "ssh://a@b", PATH: "/bin" });
    const local = { DOCKER_HOST: "unix:///var/run/docker.sock" };
    expect(detachedEngineEnv(local)).toBe(local);
  });

  it("reaches the engine host's loopback ports here for a local engine, not at all for tcp://", async () => {
    process.env.DOCKER_HOST = "unix:///var/run/docker.sock";
    delete process.env[REMOTE_ENGINE_VAR];
    expect(await engineLoopbackPort(5432)).toBe(5432);
    process.env.DOCKER_HOST = "tcp://10.0.0.1:2375";
    expect(await engineLoopbackPort(5432)).toBeUndefined();
  });

  it("checks DNS against the server's address (the SSH host's), unless PLATFORM_PUBLIC_ADDRESS says otherwise", async () => {
    expect(await serverAddresses({ DOCKER_HOST: "ssh://root@203.0.113.10" })).toEqual(["203.0.113.10"]);
    expect(await serverAddresses({ DOCKER_HOST: "ssh://root@[2001:db8::1]" })).toEqual(["2001:db8::1"]);
    expect(await serverAddresses({ DOCKER_HOST: "ssh://root@203.0.113.10", PLATFORM_PUBLIC_ADDRESS: "198.51.100.4" })).toEqual([
      "198.51.100.4",
    ]);
  });
});
