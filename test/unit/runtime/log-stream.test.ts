import { describe, expect, it } from "vitest";
import { FrameSplitter, splitTimestamp } from "../../../src/runtime/log-stream.js";

const frame = (stream: 1 | 2, text: string) => {
  const body = Buffer.from(text);
  const head = Buffer.alloc(8);
  head[0] = stream;
  head.writeUInt32BE(body.length, 4);
  return Buffer.concat([head, body]);
};

describe("Docker log frames as lines", () => {
  it("joins frames and lines cut across chunks, per stream", () => {
    const all = Buffer.concat([
      frame(1, "2026-11-24T01:00:00.1Z hello\n2026-11-24T01:00:00.2Z wor"),
      frame(2, "2026-11-24T01:00:00.3Z oops\n"),
      frame(1, "ld\n"),
    ]);
    const s = new FrameSplitter();
    const out = [...s.push(all.subarray(0, 5)), ...s.push(all.subarray(5, 40)), ...s.push(all.subarray(40))];
    expect(out).toEqual([
      { stream: "stdout", text: "2026-11-24T01:00:00.1Z hello" },
      { stream: "stderr", text: "2026-11-24T01:00:00.3Z oops" },
      { stream: "stdout", text: "2026-11-24T01:00:00.2Z world" },
    ]);
  });

  it("splits Docker's timestamp from the message", () => {
    expect(splitTimestamp("2026-11-24T01:00:00.123456789Z GET /health 200")).toEqual({
      ts: "2026-11-24T01:00:00.123456789Z",
      line: "GET /health 200",
    });
    expect(splitTimestamp("no time here")).toEqual({ ts: "", line: "no time here" });
  });
});
