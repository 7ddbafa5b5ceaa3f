import { describe, expect, it } from "vitest";
import { buildEdgeCaddyfile } from "../../../../src/provider/docker/edge-config.js";
import { edgeAlias, publicUrl } from "../../../../src/plan/naming.js";

describe("edge configuration", () => {
  it("routes *.localhost by its first label to the .edge alias on port 8080, admin on a unix socket", () => {
    const c = buildEdgeCaddyfile("localhost");
    expect(c).toContain("*.localhost:443 {");
    expect(c).toContain("reverse_proxy {http.request.host.labels.1}.edge:8080");
    expect(c).toContain("admin unix//run/caddy-admin.sock");
    expect(c).toContain("on_demand");
  });
  it("retries a request of any method on the other container, with its body buffered, and keeps upstream connections", () => {
    const c = buildEdgeCaddyfile("localhost");
    expect(c).toMatch(/lb_retry_match \{\n\t+method GET HEAD OPTIONS POST PUT PATCH DELETE\n/);
    expect(c).toContain("request_buffers 1MB");
    // Kept a little less long than uvicorn's and Node's 5 s: the edge closes an idle one first.
    expect(c).toMatch(/transport http \{[^}]*\bkeepalive 3s\n/);
  });
  it("counts the labels of a longer apps domain", () => {
    expect(buildEdgeCaddyfile("apps.example.com")).toContain("{http.request.host.labels.3}.edge:8080");
  });
  it("matches the names the target gives public services", () => {
    expect(edgeAlias("shop-web", "brave-otter")).toBe("shop-web-brave-otter.edge");
    expect(publicUrl("shop-web", "brave-otter", "localhost", 443)).toBe("https://shop-web-brave-otter.localhost");
    expect(publicUrl("shop-web", "brave-otter", "localhost", 8443)).toBe("https://shop-web-brave-otter.localhost:8443");
  });
});
