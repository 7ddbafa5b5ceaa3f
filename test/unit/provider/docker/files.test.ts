import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildTar, firstFileOfTar, lookupUser } from "../../../../src/provider/docker/files.js";

const dir = mkdtempSync(join(tmpdir(), "files-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("files written into a container before it starts", () => {
  const key = "-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n";
  const tar = buildTar([
    { path: "/etc/platform/tls/server.key", content: key, mode: 0o600, uid: 999, gid: 998 },
    { path: "/etc/platform/tls/ca.crt", content: "x".repeat(700), mode: 0o644, uid: 0, gid: 0 },
  ]);

  it("a tar that GNU tar reads: paths relative to the root, owner and mode kept, no directory entries", () => {
    writeFileSync(join(dir, "a.tar"), tar);
    const listing = execFileSync("tar", ["--numeric-owner", "-tvf", join(dir, "a.tar")], { encoding: "utf8" })
      .trim()
      .split("\n");
    expect(listing).toHaveLength(2);
    expect(listing[0]).toMatch(/^-rw------- 999\/998 +\d+ .* etc\/platform\/tls\/server\.key$/);
    expect(listing[1]).toMatch(/^-rw-r--r-- 0\/0 +700 .* etc\/platform\/tls\/ca\.crt$/);
    execFileSync("tar", ["-xf", join(dir, "a.tar"), "-C", dir]);
    expect(readFileSync(join(dir, "etc/platform/tls/server.key"), "utf8")).toBe(key);
    expect(statSync(join(dir, "etc/platform/tls/server.key")).mode & 0o777).toBe(0o600);
    expect(tar.length % 512).toBe(0);
  });

  it("reads back the first file of an archive (GET /archive of /etc/passwd)", () => {
    expect(firstFileOfTar(tar)).toBe(key);
  });

  it("owners by name from the image's /etc/passwd", () => {
    const passwd = "root:x:0:0:root:/root:/bin/bash\npostgres:x:999:999::/var/lib/postgresql:/bin/bash\n";
    expect(lookupUser(passwd, "postgres")).toEqual({ uid: 999, gid: 999 });
    expect(lookupUser("postgres:x:70:70::/var/lib/postgresql:/bin/sh", "postgres")).toEqual({ uid: 70, gid: 70 });
    expect(lookupUser(passwd, "nobody")).toBeUndefined();
  });

  it("refuses a relative path", () => {
    expect(() => buildTar([{ path: "etc/x", content: "", mode: 0o644, uid: 0, gid: 0 }])).toThrow(/absolute/);
  });
});
