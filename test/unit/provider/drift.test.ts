import { describe, expect, it } from "vitest";
import { inSyncWithDocker } from "../../../src/provider/drift.js";

// Types whose read needs no Docker: the random values read back what the state holds.
const password = {
  type: "platform:random:Password",
  id: "p1",
  outputs: { length: 32, value: { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", ciphertext: "v1:abc" } },
};
const engineMade = [{ type: "pulumi:pulumi:Stack" }, { type: "pulumi:providers:platform", id: "x" }];

describe("whether a deploy may skip its refresh", () => {
  it("yes when every read returns what the state holds (engine-made resources are not read)", async () => {
    expect(await inSyncWithDocker([...engineMade, password])).toBe(true);
  });

  it("no for a type the provider does not know, or a resource without an id", async () => {
    expect(await inSyncWithDocker([password, { type: "platform:docker:Gizmo", id: "g" }])).toBe(false);
    expect(await inSyncWithDocker([{ ...password, id: undefined }])).toBe(false);
  });

  it("no when a resource is due for a replacement of its own: a certificate in its renewal window", async () => {
    const cert = (days: number) => ({
      type: "platform:tls:ServerCertificate",
      id: "c1",
      outputs: { certPem: "pem", notAfter: new Date(Date.now() + days * 86_400_000).toISOString() },
    });
    expect(await inSyncWithDocker([password, cert(400)])).toBe(true);
    expect(await inSyncWithDocker([password, cert(10)])).toBe(false);
  });
});
