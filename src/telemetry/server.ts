import { type IncomingMessage, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { TelemetryStore } from "./store.js";
import type { IngestResult } from "./types.js";
import {
  type Encoding,
  OtlpRequestError,
  type Signal,
  decodeRequest,
  decompress,
  encodeError,
  encodeResponse,
  encodingOf,
} from "./decode.js";

/** OTLP/HTTP's registered port. */
export const DEFAULT_OTLP_PORT = 4318;
/** The OpenTelemetry Collector's default request limit, for compressed and decompressed bodies alike. */
export const DEFAULT_MAX_BODY_BYTES = 20 * 1024 * 1024;

export interface TelemetryServerOptions {
  readonly store: TelemetryStore;
  /**
   * Address to listen on. Loopback by default: on a host, only local processes (and the
   * published ports of containers) should be able to write telemetry. A receiver inside a
   * container listens on "0.0.0.0" of its own network.
   * @default "127.0.0.1"
   */
  readonly host?: string;
  /**
   * 0 picks a free port.
   * @default 4318
   */
  readonly port?: number;
  /** @default 20 MiB */
  readonly maxBodyBytes?: number;
  /** Told about store failures (answered 503 so that SDKs retry). @default one line on stderr */
  readonly onError?: (error: unknown) => void;
}

export interface TelemetryServer {
  readonly host: string;
  readonly port: number;
  /** Base URL for OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly url: string;
  close(): Promise<void>;
}

const PATHS: Record<string, Signal> = { "/v1/traces": "traces", "/v1/metrics": "metrics", "/v1/logs": "logs" };

/**
 * Reads a request body, refusing it as soon as it passes the limit. The rest is not kept;
 * the 413 goes out with Connection: close, so the sender's upload ends with the connection.
 */
function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const tooLarge = () => new OtlpRequestError(413, `body is larger than ${max} bytes`);
    if (Number(req.headers["content-length"] ?? 0) > max) return reject(tooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= max) chunks.push(c);
      else if (chunks.length) {
        chunks.length = 0;
        reject(tooLarge());
      }
    });
    req.on("end", () => resolve(Buffer.concat(chunks, size)));
    req.on("error", reject);
  });
}

function send(
  res: ServerResponse,
  status: number,
  encoding: Encoding | undefined,
  body: Buffer | string,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, {
    "content-type": encoding === "protobuf" ? "application/x-protobuf" : "application/json",
    "content-length": String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(body);
}

/** One export request: decode, store, answer (see the OTLP/HTTP specification for the statuses). */
async function handle(req: IncomingMessage, res: ServerResponse, opts: Required<Omit<TelemetryServerOptions, "host" | "port">>) {
  const signal = PATHS[(req.url ?? "").split("?")[0]!];
  const encoding = encodingOf(req.headers["content-type"]);
  try {
    if (!signal) throw new OtlpRequestError(404, `no such endpoint; use POST ${Object.keys(PATHS).join(", ")}`);
    if (req.method !== "POST") throw new OtlpRequestError(405, "only POST is supported");
    if (!encoding) throw new OtlpRequestError(415, "Content-Type must be application/x-protobuf or application/json");
    const raw = await readBody(req, opts.maxBodyBytes);
    const body = decompress(raw, req.headers["content-encoding"], opts.maxBodyBytes);
    // Logs are accepted so that an SDK configured for all signals does not retry forever, and dropped.
    if (signal === "logs") return send(res, 200, encoding, encodeResponse("logs", encoding, 0));
    const request = decodeRequest(signal, encoding, body);
    let result: IngestResult;
    try {
      result = signal === "traces" ? opts.store.ingestTraces(request) : opts.store.ingestMetrics(request);
    } catch (e) {
      opts.onError(e);
      return send(res, 503, encoding, encodeError(encoding, 503, "telemetry store unavailable"), { "retry-after": "5" });
    }
    send(res, 200, encoding, encodeResponse(signal, encoding, result.rejected, result.errorMessage));
  } catch (e) {
    if (!(e instanceof OtlpRequestError)) throw e;
    if (e.status === 405) res.setHeader("allow", "POST");
    if (e.status === 413) res.setHeader("connection", "close");
    if (!res.headersSent) send(res, e.status, encoding, encodeError(encoding, e.status, e.message));
  }
}

/** Starts the OTLP/HTTP receiver; resolves once it listens, with the port it got. */
export function startTelemetryServer(options: TelemetryServerOptions): Promise<TelemetryServer> {
  const host = options.host ?? "127.0.0.1";
  const opts = {
    store: options.store,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    onError: options.onError ?? ((e: unknown) => process.stderr.write(`telemetry: store error: ${(e as Error)?.message ?? e}\n`)),
  };
  const server = createServer((req, res) => {
    handle(req, res, opts).catch((e: unknown) => {
      opts.onError(e);
      if (!res.headersSent) send(res, 500, undefined, encodeError(undefined, 500, "internal error"));
      else res.destroy();
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? DEFAULT_OTLP_PORT, host, () => {
      server.off("error", reject);
      const port = (server.address() as AddressInfo).port;
      const urlHost = host.includes(":") ? `[${host}]` : host;
      resolve({
        host,
        port,
        url: `http://${urlHost}:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
