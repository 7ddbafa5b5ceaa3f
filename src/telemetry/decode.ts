import { gunzipSync } from "node:zlib";
import { otlp } from "./otlp-schema.js";

export type Signal = "traces" | "metrics" | "logs";
export type Encoding = "protobuf" | "json";

/** An OTLP request the receiver refuses, with the HTTP status to answer. */
export class OtlpRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "OtlpRequestError";
  }
}

/** The encoding of a Content-Type, or undefined for one OTLP/HTTP does not define. */
export function encodingOf(contentType: string | undefined): Encoding | undefined {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === "application/x-protobuf" || type === "application/protobuf") return "protobuf";
  if (type === "application/json") return "json";
  return undefined;
}

/**
 * Undoes Content-Encoding. The decompressed size is capped too, or a small gzip body could
 * expand to gigabytes in memory.
 */
export function decompress(body: Buffer, contentEncoding: string | undefined, maxBytes: number): Buffer {
  const enc = (contentEncoding ?? "identity").trim().toLowerCase();
  if (enc === "identity" || enc === "") return body;
  if (enc !== "gzip") throw new OtlpRequestError(415, `unsupported Content-Encoding "${enc}" (gzip or none)`);
  try {
    return gunzipSync(body, { maxOutputLength: maxBytes });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE" || e instanceof RangeError) {
      throw new OtlpRequestError(413, `decompressed body is larger than ${maxBytes} bytes`);
    }
    throw new OtlpRequestError(400, `body is not valid gzip: ${(e as Error).message}`);
  }
}

/**
 * The body of an export request to a message object: a protobufjs message or parsed OTLP
 * JSON, whose camelCase fields the normalizers read alike.
 */
export function decodeRequest(signal: Exclude<Signal, "logs">, encoding: Encoding, body: Buffer): unknown {
  if (encoding === "json") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString("utf8"));
    } catch (e) {
      throw new OtlpRequestError(400, `body is not valid JSON: ${(e as Error).message}`);
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new OtlpRequestError(400, "body must be a JSON object (an OTLP export request)");
    }
    const field = signal === "traces" ? "resourceSpans" : "resourceMetrics";
    const list = (parsed as Record<string, unknown>)[field];
    if (list !== undefined && !Array.isArray(list)) throw new OtlpRequestError(400, `${field} must be an array`);
    return parsed;
  }
  try {
    return (signal === "traces" ? otlp.traceRequest : otlp.metricsRequest).decode(body);
  } catch (e) {
    throw new OtlpRequestError(400, `body is not a valid OTLP protobuf ${signal} request: ${(e as Error).message}`);
  }
}

/** An export response: empty on full success, partial_success when some data was rejected. */
export function encodeResponse(signal: Signal, encoding: Encoding, rejected: number, errorMessage?: string): Buffer | string {
  const field = { traces: "rejectedSpans", metrics: "rejectedDataPoints", logs: "rejectedLogRecords" }[signal];
  // OTLP JSON writes int64 as a decimal string.
  const count = encoding === "json" ? String(rejected) : rejected;
  const partial = rejected > 0 || errorMessage ? { partialSuccess: { [field]: count, errorMessage: errorMessage ?? "" } } : {};
  if (encoding === "json") return JSON.stringify(partial);
  const type = { traces: otlp.traceResponse, metrics: otlp.metricsResponse, logs: otlp.logsResponse }[signal];
  return Buffer.from(type.encode(type.fromObject(partial)).finish());
}

/** The body of an error response: a google.rpc.Status, as OTLP/HTTP asks. */
export function encodeError(encoding: Encoding | undefined, status: number, message: string): Buffer | string {
  // gRPC codes: INVALID_ARGUMENT for client errors, UNAVAILABLE for retryable ones, else INTERNAL.
  const code = status === 503 ? 14 : status >= 400 && status < 500 ? 3 : 13;
  if (encoding === "protobuf") return Buffer.from(otlp.rpcStatus.encode(otlp.rpcStatus.fromObject({ code, message })).finish());
  return JSON.stringify({ code, message });
}
