// Answers / with the service's name and what its API answered (over the internal URL), and
// /health. Closes on SIGTERM so that a swap drains.
import { createServer } from "node:http";

const name = process.env.SERVICE_NAME ?? "?";
const server = createServer(async (req, res) => {
  res.setHeader("content-type", "application/json");
  if (req.url === "/health") return res.end('{"ok":true}');
  let api = null;
  try {
    api = await (await fetch(process.env.API_URL, { signal: AbortSignal.timeout(3000) })).json();
  } catch (err) {
    api = { error: String(err) };
  }
  res.end(JSON.stringify({ service: name, kind: "nextjs", api }));
});
server.listen(Number(process.env.PORT ?? 3000), "0.0.0.0");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
