import { once } from "node:events";
import { Agent, createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCertificateAuthority, createServerCertificate } from "../../../src/provider/tls/certificates.js";
import { httpsRequest } from "../../integration/helpers/cli.js";

// The integration tests' HTTPS client resends only what a browser resends, a request whose
// kept-alive connection the server closed before answering, and only for a caller that counts
// the resends (a poller, a load). Anything else still fails.
const ca = createCertificateAuthority("resend test", 1);
const cert = createServerCertificate(ca, ["app.localhost"], 1);
let requests = 0;
const server = createServer({ key: cert.keyPem, cert: cert.certPem }, (req, res) => {
  requests++;
  // The second request on a connection is dropped unanswered: the graceful-stop race.
  if (requests === 2) {
    req.socket.destroy();
    return;
  }
  res.end(`answer ${requests}`);
});
let url = "";

beforeAll(async () => {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  url = `https://app.localhost:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

describe("httpsRequest on a kept-alive connection", () => {
  it("a GET whose reused connection is closed unanswered goes again on a new one, reported as resent", async () => {
    requests = 0;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const seen: string[] = [];
    const first = await httpsRequest(`${url}/`, ca.certPem, { agent, onResend: (w) => seen.push(w) });
    expect(first).toMatchObject({ status: 200, body: "answer 1", resent: [] });
    const second = await httpsRequest(`${url}/`, ca.certPem, { agent, onResend: (w) => seen.push(w) });
    expect(second.body).toBe("answer 3");
    expect(second.resent).toHaveLength(1);
    expect(seen).toEqual(second.resent);
    agent.destroy();
  });

  it("a GET in the same case fails for a caller that does not count resends", async () => {
    requests = 0;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    await httpsRequest(`${url}/`, ca.certPem, { agent });
    await expect(httpsRequest(`${url}/`, ca.certPem, { agent })).rejects.toThrow(/socket hang up \(on a kept connection\)/);
    agent.destroy();
  });

  it("a POST in the same case fails: it may have been applied", async () => {
    requests = 0;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    await httpsRequest(`${url}/`, ca.certPem, { agent, method: "POST", body: {} });
    await expect(httpsRequest(`${url}/`, ca.certPem, { agent, method: "POST", body: {} })).rejects.toThrow(/socket hang up/);
    agent.destroy();
  });

  it("a fresh connection closed unanswered fails: that is a server's fault, not the reuse race", async () => {
    requests = 1;
    const agent = new Agent({ keepAlive: false });
    await expect(httpsRequest(`${url}/`, ca.certPem, { agent })).rejects.toThrow(/socket hang up/);
    agent.destroy();
  });
});
