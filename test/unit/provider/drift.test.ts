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
});
