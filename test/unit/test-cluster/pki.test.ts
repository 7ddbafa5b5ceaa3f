import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildCertSpecs, writePki } from "../../../src/test-cluster/pki.js";

/** The real openssl CLI: every certificate chains to the CA and says what it is for. */
describe("test cluster PKI with openssl", () => {
  const dir = join(mkdtempSync(join(tmpdir(), "platform-pki-test-")), "pki");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const openssl = (...args: string[]) => execFileSync("openssl", args, { encoding: "utf8" });

  it("writes a CA, each certificate and the service-account keys, once", async () => {
    await writePki(dir);
    const names = readdirSync(dir).sort();
    for (const s of buildCertSpecs()) expect(names).toEqual(expect.arrayContaining([`${s.name}.crt`, `${s.name}.key`]));
    expect(names).toEqual(expect.arrayContaining(["ca.crt", "ca.key", "sa.key", "sa.pub"]));
    const before = statSync(join(dir, "ca.crt")).mtimeMs;
    await writePki(dir);
    expect(statSync(join(dir, "ca.crt")).mtimeMs).toBe(before);
  }, 30_000);

  it("certificates verify against the CA, with their names and usages", () => {
    for (const s of buildCertSpecs())
      expect(openssl("verify", "-CAfile", join(dir, "ca.crt"), join(dir, `${s.name}.crt`))).toContain(": OK");
    const api = openssl("x509", "-in", join(dir, "apiserver.crt"), "-noout", "-text");
    expect(api).toMatch(/IP Address:127\.0\.0\.1, IP Address:10\.96\.0\.1/);
    expect(api).toContain("TLS Web Server Authentication");
    const kubelet = openssl("x509", "-in", join(dir, "kubelet.crt"), "-noout", "-subject");
    expect(kubelet).toContain("CN = system:node:platform, O = system:nodes");
    expect(openssl("x509", "-in", join(dir, "ca.crt"), "-noout", "-text")).toContain("CA:TRUE");
  });
});
