import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { checkpointResources } from "../../../src/engine/checkpoint.js";

function backend(checkpoint: unknown): string {
  const root = mkdtempSync(join(tmpdir(), "checkpoint-"));
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
