// Export batches as a real SDK sends them: spans made by the OpenTelemetry SDK, serialized by
// its own OTLP protobuf serializer. Attributes as instrumentation-http / FastAPI would set.
import { SpanKind, context, trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { ROUTES, prng } from "./synthetic.mjs";

/** `count` batches of `size` spans (traces of one server span and three children), all ids unique. */
export function makeBatches(count, size = 512, { json = false } = {}) {
  const rnd = prng(1);
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      "service.name": "api",
      "platform.project": "shop",
      "platform.env": "preview",
      "deployment.id": "d-1",
      "service.instance.id": "api-1",
      "telemetry.sdk.language": "python",
    }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer("opentelemetry.instrumentation.asgi", "0.50b0");
  const batches = [];
  const t0 = Date.now() - 600_000;
  for (let b = 0; b < count; b++) {
    for (let i = 0; i < size / 4; i++) {
      const start = t0 + b * 100 + i;
      const route = ROUTES[Math.floor(rnd() * ROUTES.length)];
      const status = rnd() < 0.05 ? 404 : 200;
      const server = tracer.startSpan(`GET ${route}`, {
        kind: SpanKind.SERVER,
        startTime: start,
        attributes: {
          "http.route": route,
          "http.request.method": "GET",
          "http.response.status_code": status,
          "url.path": `${route}/${i}`,
          "url.scheme": "http",
          "server.address": "api",
          "server.port": 8000,
          "network.protocol.version": "1.1",
          "client.address": "172.18.0.5",
          "user_agent.original": "python-httpx/0.27.0",
        },
      });
      const ctx = trace.setSpan(context.active(), server);
      for (const name of ["SELECT items", "SELECT prices", "http send"]) {
        const c = tracer.startSpan(
          name,
          {
            kind: SpanKind.CLIENT,
            startTime: start + 1,
            attributes: { "db.system": "postgresql", "db.statement": `${name} WHERE id = $1` },
          },
          ctx,
        );
        c.end(start + 2 + rnd() * 5);
      }
      server.end(start + 8 + rnd() * 40);
    }
    const spans = exporter.getFinishedSpans();
    exporter.reset();
    batches.push((json ? JsonTraceSerializer : ProtobufTraceSerializer).serializeRequest(spans));
  }
  return batches;
}
