import { describe, expect, it } from "vitest";
import { parseStackSettings, resolveSettings, type StackSettings, toStackConfig } from "../../../src/plan/settings.js";

/** The one precedence of a stack's settings: given > kept > default (plan/settings.ts resolveSettings). */
const edge = { httpPort: 80, acme: { ca: "https://ca.test/dir", email: "ops@example.com" } };
const door = { kind: "ingress" as const, className: "traefik" };

describe("resolveSettings", () => {
  it("takes what is given over what the stack keeps, and the defaults for what neither says", () => {
    expect(resolveSettings({}, {})).toEqual({
      appsDomain: "localhost",
      httpsPort: 443,
      publicEdge: null,
      frontDoor: null,
      target: "docker",
    });
    const kept: StackSettings = {
      appsDomain: "apps.example.com",
      httpsPort: 8443,
      publicEdge: edge,
      target: "kubernetes",
      kubeconfig: "/k",
    };
    expect(resolveSettings({}, kept)).toEqual({ ...kept, frontDoor: null });
    expect(resolveSettings({ httpsPort: 9443, target: "docker" }, kept)).toMatchObject({
      appsDomain: "apps.example.com",
      httpsPort: 9443,
      target: "docker",
    });
  });

  it("a null public edge or front door given now is a choice that wins over the kept one; undefined is not", () => {
    expect(resolveSettings({ publicEdge: null }, { publicEdge: edge }).publicEdge).toBeNull();
    expect(resolveSettings({ publicEdge: undefined }, { publicEdge: edge }).publicEdge).toEqual(edge);
    expect(resolveSettings({ frontDoor: null }, { frontDoor: door }).frontDoor).toBeNull();
    expect(resolveSettings({}, { frontDoor: door }).frontDoor).toEqual(door);
  });

  it("reads back what it writes: stack config values round-trip", () => {
    const r = resolveSettings(
      { appsDomain: "a.example.com", publicEdge: edge, frontDoor: door, target: "kubernetes", registry: "127.0.0.1:5001" },
      {},
    );
    const values = toStackConfig(r);
    expect(values["platform:kubeconfig"]).toBe("");
    expect(resolveSettings({}, parseStackSettings(values))).toEqual(r);
  });

  it("an unreadable kept value is not said (the defaults fill it)", () => {
    const kept = parseStackSettings({ "platform:httpsPort": "not a port", "platform:target": "", "platform:frontDoor": "" });
    expect(resolveSettings({}, kept)).toMatchObject({ httpsPort: 443, target: "docker", frontDoor: null });
  });
});
