import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../fixtures/temp-home.js";
import { checkpointOutputs, checkpointResources } from "../../../src/engine/checkpoint.js";
import { stackUrls } from "../../../src/engine/stack-ops.js";

function backend(checkpoint: unknown): string {
  const root = tempDir("checkpoint-");
  mkdirSync(join(root, ".pulumi", "stacks", "app"), { recursive: true });
  writeFileSync(
    join(root, ".pulumi", "stacks", "app", "preview.json"),
    typeof checkpoint === "string" ? checkpoint : JSON.stringify(checkpoint),
  );
  return pathToFileURL(root).href;
}
const creds = (backendUrl: string) => ({ backendUrl, passphrase: "x", user: "u", createdAt: "", source: "env" as const });
const resources = [
  { urn: "urn:pulumi:preview::app::platform:docker:Network::net", type: "platform:docker:Network", id: "n1", outputs: { networkId: "n1" } },
];

describe("the state's resources, read without the CLI", () => {
  it("reads a file backend's last checkpoint", () => {
    expect(checkpointResources(creds(backend({ version: 3, checkpoint: { latest: { resources } } })), "app", "preview")).toEqual(resources);
  });

  it("gives up (the deploy refreshes) on operations left half-done, an unreadable file, or another backend", () => {
    expect(
      checkpointResources(
        creds(backend({ checkpoint: { latest: { resources, pending_operations: [{ type: "creating" }] } } })),
        "app",
        "preview",
      ),
    ).toBeUndefined();
    expect(checkpointResources(creds(backend("{ half")), "app", "preview")).toBeUndefined();
    expect(checkpointResources(creds(backend({})), "app", "other")).toBeUndefined();
    expect(checkpointResources(creds("https://api.pulumi.com"), "app", "preview")).toBeUndefined();
  });
});

describe("the stack's outputs, read without the CLI (platform status)", () => {
  const root = {
    urn: "urn:pulumi:preview::app::pulumi:pulumi:Stack::app-preview",
    type: "pulumi:pulumi:Stack",
    outputs: {
      db_url: { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", ciphertext: "v1:abc" },
      web_external_url: "https://app-web-a-b.localhost",
      api_external_url: "https://app-api-a-b.localhost",
      api_url: "http://api:8080",
    },
  };
  const b = backend({ checkpoint: { latest: { resources: [root, ...resources] } } });

  it("gives the root resource's outputs, secrets masked as the CLI masks them", () => {
    expect(checkpointOutputs(creds(b), "app", "preview")).toEqual({
      db_url: { value: "[secret]", secret: true },
      web_external_url: { value: "https://app-web-a-b.localhost", secret: false },
      api_external_url: { value: "https://app-api-a-b.localhost", secret: false },
      api_url: { value: "http://api:8080", secret: false },
    });
    expect(checkpointOutputs(creds(backend({ checkpoint: { latest: { resources: [] } } })), "app", "preview")).toEqual({});
    expect(checkpointOutputs(creds("https://api.pulumi.com"), "app", "preview")).toBeUndefined();
  });

  it("stackUrls reads the public URLs from it, in the file's service order", async () => {
    expect(await stackUrls("app", "preview", creds(b), ["web", "api"])).toEqual({
      web: "https://app-web-a-b.localhost",
      api: "https://app-api-a-b.localhost",
    });
  });
});
