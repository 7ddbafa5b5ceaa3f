import { execFileSync } from "node:child_process";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createCertificateAuthority, createServerCertificate, isNearExpiry } from "../../../../src/provider/tls/certificates.js";
import { certificateAuthorityHandler, serverCertificateHandler } from "../../../../src/provider/tls/tls.js";
import { diffByKeys } from "../../../../src/provider/handler.js";
import { reveal } from "../../../../src/provider/wire.js";

const DAY = 86_400_000;
const now = new Date("2026-11-27T12:00:00Z");
const ca = createCertificateAuthority("shop/preview databases", 7300, now);
const server = createServerCertificate(ca, ["database", "localhost", "127.0.0.1"], 825, now);
const dir = mkdtempSync(join(tmpdir(), "tls-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a stack's database certificates", () => {
  it("the CA is a CA, self-signed, valid 20 years, with its key", () => {
    const c = new X509Certificate(ca.certPem);
    expect(c.ca).toBe(true);
    expect(c.subject).toContain("CN=shop/preview databases");
    expect(c.verify(c.publicKey)).toBe(true);
    expect(Date.parse(c.validTo) - now.getTime()).toBeGreaterThan(7299 * DAY);
    expect(createPrivateKey(ca.keyPem).asymmetricKeyDetails?.modulusLength).toBe(3072);
    expect(ca.notAfter).toBe(new Date(now.getTime() + 7300 * DAY).toISOString());
  });

  it("the server certificate chains to the CA and names every host (DNS names and the loopback address)", () => {
    const c = new X509Certificate(server.certPem);
    expect(c.ca).toBe(false);
    expect(c.verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
    expect(c.checkIssued(new X509Certificate(ca.certPem))).toBe(true);
    expect(c.checkHost("database")).toBe("database");
    expect(c.checkHost("localhost")).toBe("localhost");
    expect(c.checkIP("127.0.0.1")).toBe("127.0.0.1");
    expect(c.checkHost("api")).toBeUndefined();
    // Its key is the certificate's.
    expect(c.checkPrivateKey(createPrivateKey(server.keyPem))).toBe(true);
    expect(server.keyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
  });

  it("openssl verifies it for TLS servers, by name", () => {
    writeFileSync(join(dir, "ca.crt"), ca.certPem);
    writeFileSync(join(dir, "server.crt"), server.certPem);
    const out = execFileSync(
      "openssl",
      [
        "verify",
        "-CAfile",
        join(dir, "ca.crt"),
        "-purpose",
        "sslserver",
        "-verify_hostname",
        "database",
        "-attime",
        String(now.getTime() / 1000 + 60),
        join(dir, "server.crt"),
      ],
      { encoding: "utf8" },
    );
    expect(out).toContain("OK");
    expect(() =>
      execFileSync("openssl", ["verify", "-CAfile", join(dir, "ca.crt"), "-verify_hostname", "web", join(dir, "server.crt")], {
        stdio: "pipe",
      }),
    ).toThrow();
  });

  it("near expiry: within the renewal window, past the end, or unreadable", () => {
    expect(isNearExpiry(new Date(now.getTime() + 100 * DAY).toISOString(), 90, now)).toBe(false);
    expect(isNearExpiry(new Date(now.getTime() + 89 * DAY).toISOString(), 90, now)).toBe(true);
    expect(isNearExpiry(new Date(now.getTime() - DAY).toISOString(), 90, now)).toBe(true);
    expect(isNearExpiry(undefined, 90, now)).toBe(true);
  });

  it("no host: a clear refusal", () => {
    expect(() => createServerCertificate(ca, [], 825, now)).toThrow(/at least one host/);
  });
});

describe("the provider's TLS resources", () => {
  it("keep private keys as secrets, and a refresh reads nothing new", async () => {
    const made = await certificateAuthorityHandler.create("urn", { commonName: "x", validityDays: 3650 });
    expect(made.outs.keyPem).toMatchObject({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" });
    expect(typeof made.outs.certPem).toBe("string");
    expect(await certificateAuthorityHandler.read(made.id, made.outs)).toEqual({});
    const srv = await serverCertificateHandler.create("urn", {
      caCertPem: made.outs.certPem,
      caKeyPem: reveal(made.outs.keyPem),
      hosts: ["database"],
      validityDays: 825,
    });
    expect(srv.outs.keyPem).toMatchObject({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" });
    expect(new X509Certificate(srv.outs.certPem as string).checkHost("database")).toBe("database");
  });

  it("a deploy renews a certificate near its end, and one for new host names or a new CA; nothing otherwise", () => {
    const inputs = { caCertPem: ca.certPem, hosts: ["database"], validityDays: 825, renewBeforeDays: 90 };
    const fresh = { ...inputs, notAfter: new Date(Date.now() + 400 * DAY).toISOString() };
    expect(diffByKeys(serverCertificateHandler, fresh, inputs)).toEqual({ changes: false });
    const old = { ...fresh, notAfter: new Date(Date.now() + 30 * DAY).toISOString() };
    expect(diffByKeys(serverCertificateHandler, old, inputs)).toMatchObject({ changes: true, replaces: ["notAfter"] });
    expect(diffByKeys(serverCertificateHandler, fresh, { ...inputs, hosts: ["database", "db"] })).toMatchObject({ replaces: ["hosts"] });
    expect(diffByKeys(serverCertificateHandler, fresh, { ...inputs, caCertPem: "other" })).toMatchObject({ replaces: ["caCertPem"] });
    const caOld = { commonName: "x", validityDays: 7300, renewBeforeDays: 365, notAfter: new Date(Date.now() + 200 * DAY).toISOString() };
    expect(diffByKeys(certificateAuthorityHandler, caOld, { commonName: "x", validityDays: 7300 })).toMatchObject({
      replaces: ["notAfter"],
    });
  });
});
