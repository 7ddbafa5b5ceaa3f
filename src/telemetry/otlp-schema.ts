/**
 * The part of the OTLP protobuf definitions (opentelemetry-proto v1, Apache-2.0) that the
 * receiver reads, with the official field numbers and types. No npm package ships the .proto
 * files any more (@opentelemetry/otlp-transformer now writes protobuf by hand and decodes only
 * responses), so the subset lives here and protobufjs compiles it once at load.
 *
 * Fields and messages left out (exemplars, links, gauges, sums, exponential histograms,
 * summaries, entity refs, ...) are skipped on the wire by protobufjs, as protobuf requires
 * of unknown fields, so a newer sender still decodes.
 */
import protobuf from "protobufjs";

const PROTO = `
syntax = "proto3";
package otlp;

message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope { string name = 1; string version = 2; }
message Resource { repeated KeyValue attributes = 1; }

message Status { string message = 2; int32 code = 3; }
message SpanEvent {
  fixed64 time_unix_nano = 1;
  string name = 2;
  repeated KeyValue attributes = 3;
}
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  bytes parent_span_id = 4;
  string name = 5;
  int32 kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  repeated SpanEvent events = 11;
  Status status = 15;
}
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }

message HistogramDataPoint {
  repeated KeyValue attributes = 9;
  fixed64 start_time_unix_nano = 2;
  fixed64 time_unix_nano = 3;
  fixed64 count = 4;
  double sum = 5;
  repeated fixed64 bucket_counts = 6;
  repeated double explicit_bounds = 7;
  double min = 11;
  double max = 12;
}
message Histogram { repeated HistogramDataPoint data_points = 1; int32 aggregation_temporality = 2; }
message Metric { string name = 1; string unit = 3; Histogram histogram = 9; }
message ScopeMetrics { InstrumentationScope scope = 1; repeated Metric metrics = 2; }
message ResourceMetrics { Resource resource = 1; repeated ScopeMetrics scope_metrics = 2; }
message ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics = 1; }

message ExportTracePartialSuccess { int64 rejected_spans = 1; string error_message = 2; }
message ExportTraceServiceResponse { ExportTracePartialSuccess partial_success = 1; }
message ExportMetricsPartialSuccess { int64 rejected_data_points = 1; string error_message = 2; }
message ExportMetricsServiceResponse { ExportMetricsPartialSuccess partial_success = 1; }
message ExportLogsPartialSuccess { int64 rejected_log_records = 1; string error_message = 2; }
message ExportLogsServiceResponse { ExportLogsPartialSuccess partial_success = 1; }

// google.rpc.Status, the body of an error response.
message RpcStatus { int32 code = 1; string message = 2; }
`;

const root = protobuf.parse(PROTO, { keepCase: false }).root;

/** protobufjs types by message name (camelCase fields, like OTLP JSON). */
export const otlp = {
  traceRequest: root.lookupType("otlp.ExportTraceServiceRequest"),
  metricsRequest: root.lookupType("otlp.ExportMetricsServiceRequest"),
  traceResponse: root.lookupType("otlp.ExportTraceServiceResponse"),
  metricsResponse: root.lookupType("otlp.ExportMetricsServiceResponse"),
  logsResponse: root.lookupType("otlp.ExportLogsServiceResponse"),
  rpcStatus: root.lookupType("otlp.RpcStatus"),
};

/** OTLP enum names in value order, for JSON that spells them out. */
export const ENUM_NAMES = {
  spanKind: [
    "SPAN_KIND_UNSPECIFIED",
    "SPAN_KIND_INTERNAL",
    "SPAN_KIND_SERVER",
    "SPAN_KIND_CLIENT",
    "SPAN_KIND_PRODUCER",
    "SPAN_KIND_CONSUMER",
  ],
  statusCode: ["STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR"],
  temporality: ["AGGREGATION_TEMPORALITY_UNSPECIFIED", "AGGREGATION_TEMPORALITY_DELTA", "AGGREGATION_TEMPORALITY_CUMULATIVE"],
} as const;

/** OTLP enum values used below (the same ints in both encodings). */
export const SpanKind = { unspecified: 0, internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;
export const StatusCode = { unset: 0, ok: 1, error: 2 } as const;
export const Temporality = { unspecified: 0, delta: 1, cumulative: 2 } as const;
