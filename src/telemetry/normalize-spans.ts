import type { SpanRow } from "./rows.js";
import { toHttpAttributes, toOrigin } from "./resource.js";
import { list, toBigInt, toEnum, toHexId, toRecord } from "./otlp-values.js";
import { ENUM_NAMES } from "./otlp-schema.js";

export interface NormalizedSpans {
  readonly spans: SpanRow[];
  readonly rejected: number;
  /** Why spans were rejected (the first reason), for the OTLP partial-success message. */
  readonly errorMessage?: string;
}

/**
 * An ExportTraceServiceRequest (decoded protobuf or OTLP JSON) to span rows. A span without
 * a valid trace id, span id or start time is rejected and counted, not stored: the rest of
 * the request still goes in, and the sender learns about it through partial_success.
 */
export function normalizeSpans(request: unknown): NormalizedSpans {
  const spans: SpanRow[] = [];
  let rejected = 0;
  let errorMessage: string | undefined;
  const reject = (why: string) => {
    rejected++;
    errorMessage ??= why;
  };
  for (const rs of list(request, "resourceSpans")) {
    const resource = toRecord((rs.resource as Record<string, unknown> | undefined)?.attributes);
    const origin = toOrigin(resource);
    for (const ss of list(rs, "scopeSpans")) {
      for (const s of list(ss, "spans")) {
        const traceId = toHexId(s.traceId, 16);
        const spanId = toHexId(s.spanId, 8);
        const startNs = toBigInt(s.startTimeUnixNano);
        const endNs = toBigInt(s.endTimeUnixNano) ?? startNs;
        if (!traceId || !spanId) {
          reject("span with a missing or invalid trace_id or span_id");
          continue;
        }
        if (startNs === undefined || startNs <= 0n || endNs === undefined) {
          reject("span without start_time_unix_nano");
          continue;
        }
        const parentSpanId = toHexId(s.parentSpanId, 8);
        if (parentSpanId === undefined) {
          // An unreadable parent id would silently turn the span into a false root.
          reject("span with an invalid parent_span_id");
          continue;
        }
        const attributes = toRecord(s.attributes);
        const http = toHttpAttributes(attributes);
        const status = (s.status ?? {}) as Record<string, unknown>;
        spans.push({
          ...origin,
          traceId,
          spanId,
          parentSpanId,
          name: typeof s.name === "string" ? s.name : "",
          kind: toEnum(s.kind, ENUM_NAMES.spanKind),
          startNs,
          endNs: endNs < startNs ? startNs : endNs, // bigints: Math.max would throw
          statusCode: toEnum(status.code, ENUM_NAMES.statusCode),
          statusMessage: typeof status.message === "string" ? status.message : "",
          httpRoute: http.route ?? null,
          httpMethod: http.method ?? null,
          httpStatus: http.status ?? null,
          attributes,
          resource,
          events: list(s, "events").map((e) => ({
            name: typeof e.name === "string" ? e.name : "",
            timeUnixNano: (toBigInt(e.timeUnixNano) ?? 0n).toString(),
            attributes: toRecord(e.attributes),
          })),
        });
      }
    }
  }
  return { spans, rejected, errorMessage };
}
