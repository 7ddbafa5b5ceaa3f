// Deterministic synthetic telemetry shared by the telemetry benchmarks: a few services,
// a handful of routes each, lognormal-ish durations, some 404s and 500s, traces of 4 spans.
import { randomBytes } from "node:crypto";

export const SERVICES = ["api", "web", "worker", "auth", "catalog"];
export const ROUTES = ["/items", "/items/{id}", "/users/{id}", "/orders", "/health", "/search", "/cart", "/login"];

/** A tiny seeded PRNG (mulberry32), so every run sees the same data. */
export function prng(seed = 42) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Flat rows as the store keeps them, `n` of them, one server span in four. */
export function makeSpanRows(n, seed = 42) {
  const rnd = prng(seed);
  const base = BigInt(Date.now() - 3600_000) * 1_000_000n;
  const rows = new Array(n);
  let traceId = randomBytes(16);
  let rootId = null;
  for (let i = 0; i < n; i++) {
    const isRoot = i % 4 === 0;
    if (isRoot) traceId = randomBytes(16);
    const spanId = randomBytes(8);
    const service = SERVICES[Math.floor(rnd() * SERVICES.length)];
    const route = rnd() < 0.05 ? null : ROUTES[Math.floor(rnd() * ROUTES.length)];
    const status = route === null ? 404 : rnd() < 0.03 ? 500 : 200;
    const durNs = BigInt(Math.floor(Math.exp(rnd() * 4 + 13)));
    const startNs = base + BigInt(Math.floor((i / n) * 3600e9));
    rows[i] = {
      traceId,
      spanId,
      parentSpanId: isRoot ? null : rootId,
      name: isRoot ? `GET ${route ?? ""}` : "SELECT items",
      kind: isRoot ? 2 : 3,
      service,
      project: "shop",
      env: "preview",
      startNs,
      endNs: startNs + durNs,
      statusCode: status === 500 ? 2 : 0,
      route: isRoot ? route : null,
      method: "GET",
      status: isRoot ? status : 0,
      attributes: JSON.stringify({
        "http.route": route,
        "http.request.method": "GET",
        "url.path": `/items/${i % 997}`,
        "http.response.status_code": status,
        "server.address": "localhost",
        "user_agent.original": "bench/1.0",
      }),
      resource: JSON.stringify({ "service.name": service, "platform.project": "shop", "platform.env": "preview" }),
    };
    if (isRoot) rootId = spanId;
  }
  return rows;
}
