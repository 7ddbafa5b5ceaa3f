// The platform's graceful stop for Node's HTTP servers, loaded first by every node process of
// an image the platform builds (NODE_OPTIONS=--require; see src/plan/recipes/node-drain.ts).
//
// The platform's edge keeps its connections to a service open between requests (keep-alive).
// On SIGTERM a server stops accepting connections (Next.js calls server.close()), but Node goes
// on answering, with "Connection: keep-alive", on a connection that stays busy: under steady
// load the old container never finishes, and SIGKILL at the end of the grace period cuts the
// responses it is sending. Once SIGTERM has come, every response closes its connection after
// it ("Connection: close") and idle connections are closed, so each of the edge's connections
// carries at most the request it is on and the edge dials the new container for the next one.
//
// An app without a SIGTERM handler of its own would die at once, cutting what it is serving:
// its servers are closed instead, and the process exits once they have answered.
"use strict";
const channels = require("node:diagnostics_channel");

const OWN = Symbol.for("platform.sigterm");
const servers = new Set();
/** Responses not yet finished: those whose headers are still to be sent can still say "close". */
const open = new Set();
let draining = false;

channels.subscribe("http.server.request.start", ({ response, server }) => {
  servers.add(server);
  if (draining) response.shouldKeepAlive = false;
  else {
    open.add(response);
    response.once("close", () => open.delete(response));
  }
});

function closeAll() {
  let left = servers.size;
  if (left === 0) process.exit(0);
  for (const server of servers) {
    server.close(() => {
      left -= 1;
      if (left === 0) process.exit(0);
    });
  }
}

function drain() {
  if (draining) return;
  draining = true;
  for (const response of open) if (!response.headersSent) response.shouldKeepAlive = false;
  for (const server of servers) server.closeIdleConnections?.();
  // Handlers the app adds later than this preload run after this one: count them all.
  const apps = process.listeners("SIGTERM").filter((l) => !l[OWN]);
  if (apps.length === 0) closeAll();
}
drain[OWN] = true;
process.on("SIGTERM", drain);
