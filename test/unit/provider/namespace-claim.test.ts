import { describe, expect, it } from "vitest";
import { foreignOwner } from "../../../src/provider/contract/labels.js";
import { namespaceClaimHandler } from "../../../src/provider/kubernetes/namespace-claim.js";

describe("a stack's claim on its Kubernetes namespace", () => {
  it("ours when the labels name this stack; else who owns it", () => {
    expect(foreignOwner(undefined, "shop", "preview")).toBeUndefined();
    expect(foreignOwner({ "platform.project": "shop", "platform.env": "preview" }, "shop", "preview")).toBeUndefined();
    expect(foreignOwner({ "platform.project": "shop-a", "platform.env": "b" }, "shop", "a-b")).toBe("project shop-a (b)");
    expect(foreignOwner({}, "shop", "preview")).toBe("something other than platform");
    expect(foreignOwner({ "platform.project": "shop", "platform.env": "prod" }, "shop", "preview")).toBe("project shop (prod)");
  });

  it("a new namespace, project or environment is a new claim (checked again); a new kubeconfig path is not", () => {
    expect(namespaceClaimHandler.inputKeys).toEqual(["kubeconfig", "namespace", "project", "env"]);
    expect(namespaceClaimHandler.updatable).toEqual(["kubeconfig"]);
  });
});
