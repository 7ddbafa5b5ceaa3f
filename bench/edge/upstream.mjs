// The upstream every path ends in: one Node process in one container, answering the same small
// JSON on 8080 (plain, for the proxies) and 8443 (TLS, the direct baselines). GET /dials on
// the TLS port counts the connections the proxies have opened to the plain port.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

export const sh = (cmd, args, input) => execFileSync(cmd, args, { input, encoding: "utf8", stdio: "pipe" });

export function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer()
      .listen(0, "127.0.0.1", () => {
        const { port } = s.address();
        s.close(() => ok(port));
      })
      .on("error", fail);
  });
}

// "/" answers with a Content-Length, as JSON APIs do (Express's res.json, FastAPI); "/chunked"
// with chunked encoding, as a Node server that calls writeHead() before end() does, and as
// streamed pages (Next.js) are: proxies forward each chunk as it comes.
const SERVER = `const http = require("http"), https = require("https");
let dials = 0;
const h = (q, s) => {
  const body = q.url === "/dials" ? String(dials) : '{"status":"ok"}';
  if (q.url === "/chunked") { s.writeHead(200, { "content-type": "application/json" }); return s.end(body); }
  s.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
};
http.createServer(h).on("connection", () => dials++).listen(8080);
https.createServer({ key: process.env.TLS_KEY, cert: process.env.TLS_CERT }, h).listen(8443);`;

/**
 * One ECDSA P-256 certificate (the kind Caddy's local CA issues) for direct.localhost and
 * bench.localhost: the upstream's own TLS and the peers' (self-signed: the client trusts it as its CA).
 */
export function makeCert(dir) {
  sh("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-days",
    "1",
    "-subj",
    "/CN=bench.localhost",
    "-addext",
    "subjectAltName=DNS:direct.localhost,DNS:bench.localhost",
    "-keyout",
    `${dir}/tls.key`,
    "-out",
    `${dir}/tls.crt`,
  ]);
  return { keyFile: `${dir}/tls.key`, certFile: `${dir}/tls.crt`, cert: readFileSync(`${dir}/tls.crt`, "utf8") };
}

/** The upstream on network `net` (alias bench.edge), its TLS port published on 127.0.0.1 (docker-proxy). */
export async function startUpstream(docker, image, net, name, tls, created) {
  const port = await freePort();
  const c = await docker.createContainer({
    name,
    Image: image,
    Entrypoint: ["node", "-e", SERVER],
    Env: [`TLS_KEY=${readFileSync(tls.keyFile, "utf8")}`, `TLS_CERT=${tls.cert}`],
    ExposedPorts: { "8443/tcp": {} },
    HostConfig: { NetworkMode: net, PortBindings: { "8443/tcp": [{ HostIp: "127.0.0.1", HostPort: String(port) }] } },
    NetworkingConfig: { EndpointsConfig: { [net]: { Aliases: ["bench.edge"] } } },
  });
  created.containers.push(c.id);
  await c.start();
  const ip = (await c.inspect()).NetworkSettings.Networks[net].IPAddress;
  return { port, ip };
}
