import type { Readable } from "node:stream";
import { docker } from "../docker-client.js";
import { listServiceContainers } from "./docker.js";

import type { LogLine, LogRequest } from "./target-runtime.js";

export type { LogLine, LogRequest };

/**
 * Splits Docker's multiplexed log frames (8-byte header: stream, 0, 0, 0, length) into
 * lines as they arrive; a frame or a line may be cut across chunks.
 */
export class FrameSplitter {
  private buf = Buffer.alloc(0);
  private partial: Record<"stdout" | "stderr", string> = { stdout: "", stderr: "" };

  push(chunk: Buffer): { stream: "stdout" | "stderr"; text: string }[] {
    this.buf = Buffer.concat([this.buf, chunk]);
    const out: { stream: "stdout" | "stderr"; text: string }[] = [];
    while (this.buf.length >= 8) {
      const len = this.buf.readUInt32BE(4);
      if (this.buf.length < 8 + len) break;
      const stream = this.buf[0] === 2 ? "stderr" : "stdout";
      const text = this.partial[stream] + this.buf.subarray(8, 8 + len).toString("utf8");
      this.buf = this.buf.subarray(8 + len);
      const lines = text.split("\n");
      this.partial[stream] = lines.pop() ?? "";
      for (const l of lines) out.push({ stream, text: l });
    }
    return out;
  }
}

/** "2026-11-24T01:02:03.123456789Z message" as Docker writes with timestamps on. */
export function splitTimestamp(text: string): { ts: string; line: string } {
  const i = text.indexOf(" ");
  return i > 0 && /^\d{4}-\d\d-\d\dT/.test(text) ? { ts: text.slice(0, i), line: text.slice(i + 1) } : { ts: "", line: text };
}

/**
 * Streams the logs of several services of one stack, each line with its service and time.
 * Returns a function that stops every stream.
 */
export async function streamLogs(q: LogRequest, onLine: (l: LogLine) => void, onEnd: () => void): Promise<() => void> {
  const containers = await listServiceContainers(q.project, q.env);
  const picked = q.services
    .map((s) => containers.find((c) => c.service === s && c.state === "running") ?? containers.find((c) => c.service === s))
    .filter((c) => c !== undefined);
  const streams: Readable[] = [];
  let open = picked.length;
  const ended = () => {
    if (--open === 0) onEnd();
  };
  if (open === 0) onEnd();
  for (const c of picked) {
    const opts = { stdout: true, stderr: true, timestamps: true, since: q.sinceSeconds, tail: q.tail };
    const stream = (q.follow
      ? await docker()
          .getContainer(c.containerId)
          .logs({ ...opts, follow: true })
      : await docker()
          .getContainer(c.containerId)
          .logs({ ...opts, follow: false })) as unknown as Readable | Buffer;
    const splitter = new FrameSplitter();
    const emit = (chunk: Buffer) => {
      for (const f of splitter.push(chunk)) onLine({ service: c.service, stream: f.stream, ...splitTimestamp(f.text) });
    };
    if (Buffer.isBuffer(stream)) {
      emit(stream);
      ended();
      continue;
    }
    streams.push(stream);
    stream.on("data", emit);
    stream.on("end", ended);
    stream.on("error", ended);
  }
  return () => {
    for (const s of streams) s.destroy();
  };
}
