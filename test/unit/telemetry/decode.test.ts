import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { otlp } from "../../../src/telemetry/otlp-schema.js";
import { routeStats, trace, UNMATCHED_ROUTE } from "../../../src/telemetry/index.js";
import {
  ALL_TIME,
  JSON_TYPE,
  PROTOBUF,
  gzip,
  makeMeter,
  makeSpans,
  metricsJson,
  metricsProto,
  post,
  tempServer,
  tracesJson,
  tracesProto,
} from "./helpers.js";

const CALLS = [
  { route: "/items/{id}", status: 200, ms: 12 },
  { route: "/items/{id}", status: 500, ms: 40 },
  { status: 404, ms: 2, path: "/nope" },
];

const countSpans = (store: { db: { prepare(s: string): { get(): unknown } } }) =>
  (store.db.prepare("SELECT count(*) AS n FROM spans").get() as { n: number }).n;

describe("OTLP/HTTP receiver: decoding", () => {
  it.each([
    ["protobuf", PROTOBUF, tracesProto, false],
    ["protobuf, gzip", PROTOBUF, tracesProto, true],
    ["JSON", JSON_TYPE, tracesJson, false],
    ["JSON, gzip", JSON_TYPE, tracesJson, true],
  ] as const)("stores SDK spans sent as %s", async (_, type, encode, zipped) => {
    const { store, server } = await tempServer();
    const spans = makeSpans(CALLS);
    const raw = encode(spans);
    const res = await post(`${server.url}/v1/traces`, zipped ? gzip(raw) : raw, zipped ? { ...type, "content-encoding": "gzip" } : type);
    expect(res.status).toBe(200);
    expect(res.type).toBe(type["content-type"]);
    // Full success: an empty ExportTraceServiceResponse ({} in JSON).
    if (type === JSON_TYPE) expect(JSON.parse(Buffer.from(res.body).toString())).toEqual({});
    else expect(otlp.traceResponse.toObject(otlp.traceResponse.decode(res.body))).toEqual({});
    expect(countSpans(store)).toBe(6);

    const server500 = spans.find((s) => s.name === "GET /items/{id}" && s.status.code === 2)!;
    const t = trace(store, server500.spanContext().traceId)!;
    expect(t.spans.map((s) => [s.name, s.kind, s.depth, s.service])).toEqual([
      ["GET /items/{id}", "server", 0, "api"],
      ["SELECT items", "client", 1, "api"],
    ]);
    expect(t.spans[0]).toMatchObject({ status: "error", statusMessage: "boom", parentSpanId: null, durationMs: 40 });
    expect(t.spans[0]!.attributes).toMatchObject({ "http.route": "/items/{id}", "http.response.status_code": 500 });
    expect(t.spans[0]!.resource).toMatchObject({ "platform.project": "shop", "deployment.id": "d-1" });
    expect(t.spans[1]!.parentSpanId).toBe(server500.spanContext().spanId);
    expect(t.spans[1]!.events).toEqual([{ name: "rows", timeMs: t.spans[0]!.startMs + 2, attributes: { n: 3 } }]);
    expect(t.spans[0]!.startTimeUnixNano).toMatch(/^\d{19}$/);

    // Server spans feed route statistics when no metrics come: the 404 is the unmatched row.
    const stats = routeStats(store, { project: "shop", env: "preview", ...ALL_TIME });
    expect(stats.routes.map((r) => [r.route, r.count, r.statusCodes, r.source])).toEqual([
      [UNMATCHED_ROUTE, 1, { 404: 1 }, "spans"],
      ["/items/{id}", 2, { 200: 1, 500: 1 }, "spans"],
    ]);
  });

  it("a retried export stores nothing twice", async () => {
    const { store, server } = await tempServer();
    const body = tracesProto(makeSpans(CALLS));
    for (let i = 0; i < 2; i++) expect((await post(`${server.url}/v1/traces`, body, PROTOBUF)).status).toBe(200);
    expect(countSpans(store)).toBe(6);
    expect(routeStats(store, ALL_TIME).routes.reduce((n, r) => n + r.count, 0)).toBe(3);
  });

  it("reads hand-written OTLP JSON: hex ids, int64 as strings, enums as ints, old semconv names", async () => {
    const { store, server } = await tempServer();
    const now = BigInt(Date.now()) * 1_000_000n;
    const body = {
      resourceSpans: [
        {
          resource: {
            attributes: [
              { key: "service.name", value: { stringValue: "py" } },
              { key: "service.version", value: { stringValue: "v7" } },
            ],
          },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: "5B8EFFF798038103D269B633813FC60C",
                  spanId: "EEE19B7EC3C1B174",
                  parentSpanId: "",
                  name: "GET /a/{x}",
                  kind: 2,
                  startTimeUnixNano: String(now),
                  endTimeUnixNano: String(now + 5_000_000n),
                  attributes: [
                    { key: "http.method", value: { stringValue: "get" } },
                    { key: "http.status_code", value: { intValue: "201" } },
                    { key: "http.route", value: { stringValue: "/a/{x}" } },
                    { key: "big", value: { intValue: "9007199254740993" } },
                    { key: "list", value: { arrayValue: { values: [{ boolValue: true }, { doubleValue: 1.5 }] } } },
                    { key: "map", value: { kvlistValue: { values: [{ key: "k", value: { stringValue: "v" } }] } } },
                  ],
                  status: { code: 1 },
                },
                { traceId: "nothex", spanId: "EEE19B7EC3C1B175", startTimeUnixNano: String(now) },
                // Enum names, as protobuf's canonical JSON mapping writes them.
                {
                  traceId: "5B8EFFF798038103D269B633813FC60C",
                  spanId: "EEE19B7EC3C1B176",
                  parentSpanId: "EEE19B7EC3C1B174",
                  name: "db",
                  kind: "SPAN_KIND_CLIENT",
                  startTimeUnixNano: String(now + 1_000_000n),
                  endTimeUnixNano: String(now + 2_000_000n),
                  status: { code: "STATUS_CODE_ERROR" },
                },
              ],
            },
          ],
        },
      ],
    };
    const res = await post(`${server.url}/v1/traces`, JSON.stringify(body), JSON_TYPE);
    expect(res.status).toBe(200);
    expect(JSON.parse(Buffer.from(res.body).toString())).toEqual({
      partialSuccess: { rejectedSpans: "1", errorMessage: "span with a missing or invalid trace_id or span_id" },
    });
    const t = trace(store, "5b8efff798038103d269b633813fc60c")!;
    expect(t.spans[0]).toMatchObject({ name: "GET /a/{x}", status: "ok", durationMs: 5, service: "py" });
    expect(t.spans[1]).toMatchObject({ name: "db", kind: "client", status: "error", depth: 1 });
    expect(t.spans[0]!.attributes).toEqual({
      "http.method": "get",
      "http.status_code": 201,
      "http.route": "/a/{x}",
      big: "9007199254740993",
      list: [true, 1.5],
      map: { k: "v" },
    });
    expect(routeStats(store, ALL_TIME).routes).toMatchObject([{ service: "py", method: "GET", route: "/a/{x}", statusCodes: { 201: 1 } }]);
  });

  it("stores SDK histograms sent as protobuf and as JSON", async () => {
    const { store, server } = await tempServer();
    const meter = makeMeter("cumulative");
    meter.record(10, { "http.route": "/items", "http.request.method": "GET", "http.response.status_code": 200 });
    meter.record(20, { "http.request.method": "GET", "http.response.status_code": 404 });
    expect((await post(`${server.url}/v1/metrics`, metricsProto(await meter.collect()), PROTOBUF)).status).toBe(200);
    meter.record(30, { "http.route": "/items", "http.request.method": "GET", "http.response.status_code": 200 });
    const res = await post(`${server.url}/v1/metrics`, gzip(metricsJson(await meter.collect())), {
      ...JSON_TYPE,
      "content-encoding": "gzip",
    });
    expect(res.status).toBe(200);
    const routes = routeStats(store, { project: "shop", ...ALL_TIME }).routes;
    expect(routes.map((r) => [r.route, r.count, r.statusCodes, r.source])).toEqual([
      [UNMATCHED_ROUTE, 1, { 404: 1 }, "metrics"],
      ["/items", 2, { 200: 2 }, "metrics"],
    ]);
  });
});

describe("OTLP/HTTP receiver: refusals", () => {
  it.each([
    ["garbage protobuf", PROTOBUF, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]), 400],
    ["broken JSON", JSON_TYPE, "{not json", 400],
    ["JSON that is not an object", JSON_TYPE, "[1,2]", 400],
    ["resourceSpans not a list", JSON_TYPE, '{"resourceSpans": 3}', 400],
    ["an unknown content type", { "content-type": "text/plain" }, "x", 415],
    ["bad gzip", { ...PROTOBUF, "content-encoding": "gzip" }, "not gzip", 400],
    ["an unknown content encoding", { ...PROTOBUF, "content-encoding": "br" }, "x", 415],
  ] as const)("answers %s with an error status and a google.rpc.Status", async (_, headers, body, status) => {
    const { server } = await tempServer();
    const res = await post(`${server.url}/v1/traces`, body, headers);
    expect(res.status).toBe(status);
    if (headers["content-type"] === PROTOBUF["content-type"]) {
      expect(otlp.rpcStatus.toObject(otlp.rpcStatus.decode(res.body))).toMatchObject({ code: 3, message: expect.any(String) });
    } else expect(JSON.parse(Buffer.from(res.body).toString())).toMatchObject({ code: 3, message: expect.any(String) });
  });

  it("limits the body size, compressed and decompressed", async () => {
    const { server } = await tempServer(undefined, 1000);
    expect((await post(`${server.url}/v1/traces`, "x".repeat(2000), JSON_TYPE)).status).toBe(413);
    const bomb = gzip(" ".repeat(100_000));
    expect(bomb.length).toBeLessThan(1000);
    expect((await post(`${server.url}/v1/traces`, bomb, { ...JSON_TYPE, "content-encoding": "gzip" })).status).toBe(413);
    // Chunked, with no Content-Length to refuse up front.
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/v1/traces`, { method: "POST", headers: JSON_TYPE }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on("error", reject);
      for (let i = 0; i < 4; i++) req.write("x".repeat(500));
      req.end();
    });
    expect(status).toBe(413);
  });

  it("404 for other paths, 405 for other methods, 200 and nothing kept for logs", async () => {
    const { server } = await tempServer();
    expect((await post(`${server.url}/v1/other`, "{}", JSON_TYPE)).status).toBe(404);
    const get = await fetch(`${server.url}/v1/traces`);
    expect([get.status, get.headers.get("allow")]).toEqual([405, "POST"]);
    const logs = await post(`${server.url}/v1/logs`, Buffer.alloc(0), PROTOBUF);
    expect([logs.status, logs.body.length]).toEqual([200, 0]);
  });

  it("listens on loopback by default", async () => {
    const { server } = await tempServer();
    expect(server.host).toBe("127.0.0.1");
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
  });
});
