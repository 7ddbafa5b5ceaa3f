import { describe, expect, it } from "vitest";
import { buildEdgeCaddyfile } from "../../../../src/provider/docker/edge-config.js";
import { buildPublicEdgeCaddyfile } from "../../../../src/provider/docker/edge-public-config.js";
import { edgeLoopback, edgeResolvConf } from "../../../../src/provider/docker/edge-resolver.js";
import { edgeAlias, publicUrl } from "../../../../src/plan/naming.js";

describe("edge configuration", () => {
  it("routes *.localhost by its first label to the .edge alias on port 8080, admin on a unix socket", () => {
    const c = buildEdgeCaddyfile("localhost");
    expect(c).toContain("*.localhost:443 {");
    expect(c).toMatch(/reverse_proxy \{\n\t+dynamic a \{\n\t+name \{http.request.host.labels.1\}.edge\n\t+port 8080\n/);
    expect(c).toContain("lb_policy least_conn");
    expect(c).toContain("admin unix//run/caddy-admin.sock");
    expect(c).toContain("on_demand");
  });
  it("retries a request of any method on the other container, with its body buffered, and keeps upstream connections", () => {
    const c = buildEdgeCaddyfile("localhost");
    expect(c).toMatch(/lb_retry_match \{\n\t+method GET HEAD OPTIONS POST PUT PATCH DELETE\n/);
    expect(c).toContain("request_buffers 1MB");
    // Kept a little less long than uvicorn's and Node's 5 s: the edge closes an idle one first.
    expect(c).toMatch(/transport http \{[^}]*\bkeepalive 3s\n/);
    // Caddy's default of 32 made a third of the requests dial at 64 concurrent ones (bench/edge).
    expect(c).toMatch(/transport http \{[^}]*\bkeepalive_idle_conns_per_host 128\n/);
  });
  it("counts the labels of a longer apps domain", () => {
    expect(buildEdgeCaddyfile("apps.example.com")).toContain("name {http.request.host.labels.3}.edge\n");
  });
  it("matches the names the target gives public services", () => {
    expect(edgeAlias("shop-web", "brave-otter")).toBe("shop-web-brave-otter.edge");
    expect(publicUrl("shop-web", "brave-otter", "localhost", 443)).toBe("https://shop-web-brave-otter.localhost");
    expect(publicUrl("shop-web", "brave-otter", "localhost", 8443)).toBe("https://shop-web-brave-otter.localhost:8443");
  });
  it("binds 127.0.0.1 only in local mode, on the chosen port, HTTP/1.1 and HTTP/2 only (the edge is in the host's network)", () => {
    const c = buildEdgeCaddyfile("localhost", 8443);
    expect(c).toContain("default_bind 127.0.0.1");
    expect(c).toContain("*.localhost:8443 {");
    expect(c).toContain("protocols h1 h2");
  });
  it("public mode: every interface on the chosen ports (127.0.0.1 on its own socket too), the on-demand guard on the edge's own loopback address", () => {
    const c = buildPublicEdgeCaddyfile("apps.example.com", { ca: "https://acme.test/dir", email: "ops@example.com" }, 18443, 18080);
    expect(c).toContain('default_bind 127.0.0.1 ""');
    expect(c).toContain("http_port 18080");
    expect(c).toContain("https_port 18443");
    expect(c).toContain("ask http://127.0.83.1:2019/allowed");
    expect(c).toMatch(/http:\/\/127\.0\.83\.1:2019 \{\n\tbind 127\.0\.83\.1\n/);
    expect(c).toContain("protocols h1 h2");
  });
  it("gives each edge name its own loopback address for its resolver and guard", () => {
    expect(edgeLoopback("platform-edge")).toBe("127.0.83.1");
    const other = edgeLoopback("plt-public-edge-1");
    expect(other).toMatch(/^127\.0\.(8[4-9]|9\d|1[0-8]\d)\.\d+$/);
    expect(other).not.toBe("127.0.83.1");
    expect(edgeLoopback("plt-public-edge-1")).toBe(other);
    expect(edgeResolvConf()).toBe("nameserver 127.0.83.1\noptions timeout:1 attempts:3\n");
  });
});
