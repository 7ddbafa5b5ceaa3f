// One receiver in its own process, so that the benchmark's client does not share its core.
//   node receiver-child.mjs store DIR   the real receiver and store (dist/ must be built)
//   node receiver-child.mjs discard     reads each body and answers 200, nothing else (baseline)
// Prints {"port": N} once listening; exits when stdin closes.
import { createServer } from "node:http";

const [mode, dir] = process.argv.slice(2);
let close;
if (mode === "store") {
  const { TelemetryStore, startTelemetryServer } = await import("../../dist/telemetry/index.js");
  const store = TelemetryStore.open({ dir, pruneIntervalMs: 0 });
  const server = await startTelemetryServer({ store, port: 0 });
  process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
  close = async () => {
    await server.close();
    store.close();
  };
} else {
  const server = createServer((req, res) => {
    req.on("data", () => {});
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/x-protobuf", "content-length": "0" });
      res.end();
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
  close = () => new Promise((r) => server.close(r));
}
process.stdin.resume();
process.stdin.on("end", async () => {
  await close();
  process.exit(0);
});
