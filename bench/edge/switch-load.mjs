// The load of bench/edge/switch.mjs: node switch-load.mjs h1|h2|hs PORT CLIENTS MILLISECONDS.
// Prints {ok, failed, resent, samples}: requests answered, failed (with a few samples), and (h2)
// requests sent again because their HEADERS frame never left this client.
import https from "node:https";
import http2 from "node:http2";
import tls from "node:tls";

const [protocol, port, clients, ms] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5])];
const t0 = Date.now();
const r = { ok: 0, failed: 0, resent: 0, samples: [] };
const fail = (what) => {
  r.failed++;
  if (r.samples.length < 3) r.samples.push(`${Date.now() - t0} ms: ${what}`);
};
const running = () => Date.now() - t0 < ms;

async function h1Client() {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
  const opts = {
    host: "127.0.0.1",
    port,
    path: "/",
    agent,
    servername: "localhost",
    rejectUnauthorized: false,
    headers: { host: "localhost" },
  };
  while (running())
    await new Promise((done) => {
      const req = https.get(opts, (res) => {
        res.resume();
        res.on("end", () => {
          if (res.statusCode === 200) r.ok++;
          else fail(`HTTP ${res.statusCode}`);
          done();
        });
      });
      req.on("error", (e) => {
        fail(`${e.code ?? ""} ${e.message}`);
        done();
      });
    });
  agent.destroy();
}

async function h2Client() {
  const connect = () => {
    const s = http2.connect(`https://127.0.0.1:${port}`, { servername: "localhost", rejectUnauthorized: false });
    s.on("goaway", () => (s.ended = true));
    s.on("error", () => (s.ended = true));
    s.on("close", () => (s.ended = true));
    return s;
  };
  let session = connect();
  const sessions = [session];
  const current = () => {
    if (session.ended || session.closed || session.destroyed) {
      session = connect();
      sessions.push(session);
    }
    return session;
  };
  const one = () =>
    new Promise((done) => {
      const s = current();
      let unsent = false;
      const st = s.request({ ":path": "/", ":authority": "localhost" });
      let status = 0;
      st.on("frameError", (type) => {
        unsent = type === 1;
      });
      st.on("response", (h) => {
        status = h[":status"];
      });
      st.resume();
      st.on("end", () => {
        if (status === 200) r.ok++;
        else fail(`HTTP ${status}`);
        done();
      });
      st.on("error", (e) => {
        if (unsent) r.resent++;
        else fail(`${e.code} ${e.message}`);
        done();
      });
    });
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (running()) await one();
    }),
  );
  for (const s of sessions) s.destroy();
}

/** A new TCP connection and TLS handshake each time, no request: the accept queues' turn-over. */
async function handshakeClient() {
  while (running())
    await new Promise((done) => {
      const s = tls.connect({ host: "127.0.0.1", port, servername: "localhost", rejectUnauthorized: false });
      s.once("secureConnect", () => {
        r.ok++;
        s.destroy();
        done();
      });
      s.once("error", (e) => {
        fail(`${e.code ?? ""} ${e.message}`);
        s.destroy();
        done();
      });
    });
}

if (protocol === "hs") await Promise.all(Array.from({ length: clients }, handshakeClient));
else if (protocol === "h1") await Promise.all(Array.from({ length: clients }, h1Client));
else await Promise.all(Array.from({ length: Math.max(1, Math.round(clients / 6)) }, h2Client));
console.log(JSON.stringify(r));
