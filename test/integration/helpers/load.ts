import { Agent } from "node:https";
import { httpsRequest } from "./cli.js";
import { H2ConnectError, type H2Log, H2Tab, h2Request, newH2Log } from "./h2.js";

/**
 * A bounded load generator for the zero-downtime test (and the public-edge test's redeploys and
 * edge mode switches), speaking both protocols browsers use:
 * - HTTP/1.1 (node:https): `clients` loops, each sending one request at a time from a fixed
 *   mix, half of them on a fresh TLS connection per request and half on one pooled keep-alive
 *   connection;
 * - HTTP/2 (node:http2, see h2.ts): `h2.clients` clients like browser tabs, each with one
 *   session per origin on which `h2.streams` loops keep that many streams in flight at once.
 * Every answer that is not 2xx and every error (reset, RST_STREAM, GOAWAY, session error,
 * timeout, refused, a certificate not valid yet, each connection that could not be made for a
 * stream) is kept with what it was, and every latency is recorded with the protocol and the
 * phase it was sent in, so that the test can compare a quiet phase with the redeploys. An
 * HTTP/1.1 request resent because its kept connection was closed under it is a failure too,
 * unless the test says its edge hands over (`resends`). Both protocols share one budget:
 * `maxRequests` requests, `maxMs` of time.
 */
export interface LoadRequest {
  name: string;
  url: string;
  method?: string;
  body?: () => unknown;
}

export type Protocol = "http/1.1" | "h2";
export const PROTOCOLS: Protocol[] = ["http/1.1", "h2"];

export interface LoadFailure {
  protocol: Protocol;
  client: string;
  request: string;
  phase: string;
  what: string;
  /** performance.now() when the request was sent, and when it failed. */
  sentAt: number;
  at: number;
}

export interface LoadOptions {
  /** HTTP/1.1 clients: even ones open a TLS connection per request, odd ones keep one. */
  clients: number;
  /** HTTP/2 clients (one session per origin each) and the streams each keeps in flight. */
  h2?: { clients: number; streams: number };
  mix: LoadRequest[];
  /**
   * The CA certificates to trust (PEM, one or several). A function is read again for every
   * HTTP/1.1 request and every new HTTP/2 session: a trust that changes while the load runs.
   */
  ca: string | (() => string);
  maxRequests: number;
  /** The load stops by itself after this long, if it was not stopped before. */
  maxMs?: number;
  timeoutMs?: number;
  /**
   * How long an HTTP/1.1 loop waits after a request that failed with an error (no answer) before
   * its next one (instead of `pauseMs`), so that an edge that is down (connection refused at
   * once) does not burn the budget, and is probed often enough to time its gap. Default 0: no
   * wait. (HTTP/2 loops wait 1 s after a connection that could not be made.)
   */
  errorPauseMs?: number;
  /**
   * How long every loop (HTTP/1.1 client, HTTP/2 stream loop) waits after each request before
   * its next one, a user's think time: it spreads a small request budget over a longer sequence
   * of deploys. Default 0: the next request as soon as the answer came. (An HTTP/1.1 request
   * that got no answer is followed by `errorPauseMs` instead.)
   */
  pauseMs?: number;
  /**
   * What an HTTP/1.1 request resent on a new connection is (one whose kept connection the
   * server closed before any byte of an answer: see httpsRequest). "fail" (the default): a failed
   * request, as it is where the edge stays: only an edge's graceful stop races with a kept
   * connection, so a reset in an app swap is the product's. "allowed": for a test whose edge
   * hands over to a new one, which a browser gets through by resending the request silently;
   * the resends are listed in `resent`, with their phase, for the test to assert
   * (`handOverResends`), and a POST, which a browser does not resend, still fails.
   */
  resends?: "fail" | "allowed";
}

export interface ProtocolStats {
  sent: number;
  failures: LoadFailure[];
  okCounts: Map<string, number>;
  latencies: Map<string, number[]>;
  /** HTTP/1.1 requests sent again on a new connection after their kept-alive one closed under them (as browsers do, cli.ts). */
  resent: LoadResend[];
}

/** An HTTP/1.1 request resent on a new connection (see LoadOptions.resends). */
export interface LoadResend {
  client: string;
  request: string;
  phase: string;
  what: string;
}

export interface LoadResult {
  /** All protocols together. */
  sent: number;
  failures: LoadFailure[];
  okCounts: Map<string, number>;
  latencies: Map<string, number[]>;
  byProtocol: Record<Protocol, ProtocolStats>;
  h2: H2Log;
  options: LoadOptions;
  /** "stop" unless the load reached one of its bounds before it was stopped. */
  stoppedBy: "stop" | "maxRequests" | "maxMs";
}

const newStats = (): ProtocolStats => ({ sent: 0, failures: [], okCounts: new Map(), latencies: new Map(), resent: [] });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The light load most deploy tests put on: 4 HTTP/1.1 clients (half on a TLS connection per request, half on a kept one) and one HTTP/2 tab of 4 streams. */
export const LIGHT_LOAD = { clients: 4, h2: { clients: 1, streams: 4 } } as const;

export function startLoad(o: LoadOptions) {
  let phase = "rest";
  let running = true;
  let sent = 0;
  const deadline = performance.now() + (o.maxMs ?? Number.POSITIVE_INFINITY);
  const timeoutMs = o.timeoutMs ?? 15_000;
  const stats: Record<Protocol, ProtocolStats> = { "http/1.1": newStats(), h2: newStats() };
  const agents: Agent[] = [];
  const h2Log = newH2Log();
  const tabs: H2Tab[] = [];
  const trust = typeof o.ca === "function" ? o.ca : () => o.ca as string;
  const more = () => running && sent < o.maxRequests && performance.now() < deadline;

  /** Counts one request sent: call it before sending it. */
  const count = (p: Protocol) => {
    sent++;
    stats[p].sent++;
  };
  const fail = (f: LoadFailure) => {
    stats[f.protocol].failures.push(f);
  };
  /** What became of a request: an answer (2xx or it failed) or an error. */
  function outcome(
    p: Protocol,
    client: string,
    r: LoadRequest,
    at: string,
    t0: number,
    res: { status: number; body: string } | { error: string },
  ) {
    const s = stats[p];
    const times = { sentAt: t0, at: performance.now() };
    if ("error" in res) fail({ protocol: p, client, request: r.name, phase: at, what: res.error, ...times });
    else if (res.status < 200 || res.status > 299)
      fail({ protocol: p, client, request: r.name, phase: at, what: `HTTP ${res.status} ${res.body.slice(0, 120)}`, ...times });
    else s.okCounts.set(r.name, (s.okCounts.get(r.name) ?? 0) + 1);
    const list = s.latencies.get(at) ?? [];
    list.push(performance.now() - t0);
    s.latencies.set(at, list);
  }

  async function http1Client(i: number): Promise<void> {
    const pooled = i % 2 === 1;
    const client = `http/1.1 #${i} ${pooled ? "pooled" : "fresh TLS"}`;
    const agent = pooled ? new Agent({ keepAlive: true, maxSockets: 1 }) : new Agent({ keepAlive: false });
    agents.push(agent);
    for (let n = i; more(); n++) {
      const r = o.mix[n % o.mix.length] as LoadRequest;
      const at = phase;
      count("http/1.1");
      const t0 = performance.now();
      // A resend is one more request sent; unless the test allows them, the first one failed.
      const onResend = (what: string) => {
        stats["http/1.1"].resent.push({ client, request: r.name, phase: at, what });
        count("http/1.1");
        if (o.resends !== "allowed")
          fail({ protocol: "http/1.1", client, request: r.name, phase: at, what, sentAt: t0, at: performance.now() });
      };
      let pause = o.pauseMs;
      try {
        const res = await httpsRequest(r.url, trust(), { method: r.method, body: r.body?.(), agent, timeoutMs, onResend });
        outcome("http/1.1", client, r, at, t0, res);
      } catch (e) {
        outcome("http/1.1", client, r, at, t0, { error: (e as Error).message });
        pause = o.errorPauseMs;
      }
      if (pause) await sleep(pause);
    }
  }

  async function h2Stream(tab: H2Tab, t: number, s: number): Promise<void> {
    const client = `h2 #${t} stream loop ${s}`;
    for (let n = s; more(); n++) {
      const r = o.mix[n % o.mix.length] as LoadRequest;
      const at = phase;
      count("h2");
      const t0 = performance.now();
      try {
        outcome("h2", client, r, at, t0, await h2Request(tab, r.url, { method: r.method, body: r.body?.(), timeoutMs }));
      } catch (e) {
        const what = (e as Error).message;
        outcome("h2", client, r, at, t0, { error: what });
        // A connection that could not be made (the request failed) is tried again after a
        // second, so that an edge that refuses does not burn the budget.
        if (e instanceof H2ConnectError) await sleep(1000);
      }
      if (o.pauseMs) await sleep(o.pauseMs);
    }
  }

  const loops: Promise<void>[] = Array.from({ length: o.clients }, (_, i) => http1Client(i));
  for (let t = 0; t < (o.h2?.clients ?? 0); t++) {
    const tab = new H2Tab(trust, timeoutMs, h2Log);
    tabs.push(tab);
    for (let s = 0; s < (o.h2?.streams ?? 0); s++) loops.push(h2Stream(tab, t, s));
  }
  // Connections are closed as soon as the loops end, stopped or at a bound: nothing outlives the load.
  const done = Promise.all(loops).then(async () => {
    const stoppedBy = running ? (sent >= o.maxRequests ? "maxRequests" : "maxMs") : "stop";
    for (const a of agents) a.destroy();
    await Promise.all(tabs.map((t) => t.close()));
    return stoppedBy;
  });
  return {
    /** Latencies from now on are counted under this phase. */
    setPhase: (p: string) => {
      phase = p;
    },
    sent: () => sent,
    stop: async (): Promise<LoadResult> => {
      running = false;
      const stoppedBy = await done;
      const okCounts = new Map<string, number>();
      const latencies = new Map<string, number[]>();
      for (const p of PROTOCOLS) {
        for (const [k, v] of stats[p].okCounts) okCounts.set(k, (okCounts.get(k) ?? 0) + v);
        for (const [k, v] of stats[p].latencies) latencies.set(k, [...(latencies.get(k) ?? []), ...v]);
      }
      const failures = PROTOCOLS.flatMap((p) => stats[p].failures);
      return { sent, failures, okCounts, latencies, byProtocol: stats, h2: h2Log, options: o, stoppedBy };
    },
  };
}

/**
 * The resends of a load allowed to have them (LoadOptions.resends "allowed") that a browser
 * would not have made silently on an edge hand-over: any sent outside the hand-overs' `phases`,
 * and more than `handOvers` by one client (each HTTP/1.1 client keeps one connection, which the
 * old edge's graceful stop closes once; the request resent goes to the new edge). Only an
 * idempotent request is ever resent (httpsRequest). Empty when every resend is such a one.
 */
export function unexplainedResends(r: LoadResult, phases: readonly string[], handOvers: number): string[] {
  const resent = r.byProtocol["http/1.1"].resent;
  const outside = resent.filter((e) => !phases.includes(e.phase)).map((e) => `${e.client} ${e.request} (${e.phase}): ${e.what}`);
  const byClient = new Map<string, number>();
  for (const e of resent) byClient.set(e.client, (byClient.get(e.client) ?? 0) + 1);
  const over = [...byClient].filter(([, n]) => n > handOvers).map(([c, n]) => `${c}: ${n} resends in ${handOvers} hand-over(s)`);
  return [...outside, ...over];
}

/**
 * A POST of a new event to the fullstack example's API (/api/events, one row each), for a load's
 * mix: `label` starts each message. With `eventCount` before and after the load, a test proves
 * that every POST answered 201 was stored once, no more. On a kept connection it is the request
 * a browser does not resend when the connection is closed under it: a failure, whatever `resends`.
 */
export function eventPost(api: string, label: string): LoadRequest {
  let posted = 0;
  return { name: "POST api /api/events", url: `${api}/api/events`, method: "POST", body: () => ({ message: `${label} ${++posted}` }) };
}

/** The fullstack example's number of events, from its API's /api/status (which must answer with its database). */
export async function eventCount(api: string, ca: string): Promise<number> {
  const r = await httpsRequest(`${api}/api/status`, ca);
  const status = r.status === 200 ? (JSON.parse(r.body) as { database: string; event_count: number }) : undefined;
  if (status?.database !== "ok") throw new Error(`GET ${api}/api/status: HTTP ${r.status} ${r.body}`);
  return status.event_count;
}

/** How many POSTs of `eventPost` a load got a 2xx for. */
export const eventsPosted = (r: LoadResult) => r.okCounts.get("POST api /api/events") ?? 0;

/** The q-quantile (0..1) of a list of numbers, by the nearest-rank method. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

const ms = (v: number) => `${v.toFixed(1)} ms`;
const latencyLine = (label: string, values: number[]) =>
  `${label}: ${values.length} requests, p50 ${ms(quantile(values, 0.5))}, p99 ${ms(quantile(values, 0.99))}`;

/** What a load did, per protocol and phase, with its failures grouped by reason: lines for the test's output. */
export function describeLoad(r: LoadResult): string[] {
  const lines = [
    `load: ${r.sent} requests (bounds: ${r.options.maxRequests} requests, ${r.options.maxMs ?? "no"} ms; stopped by ${r.stoppedBy}), ${r.failures.length} failed`,
  ];
  for (const p of PROTOCOLS) {
    const s = r.byProtocol[p];
    const h1 = r.options.clients;
    const who =
      p === "h2"
        ? `${r.options.h2?.clients ?? 0} clients x ${r.options.h2?.streams ?? 0} streams, ${r.h2.opened} sessions opened (ALPN h2), up to ${r.h2.maxStreams} streams at once on one session`
        : `${h1} clients: ${Math.ceil(h1 / 2)} with a TLS connection per request, ${Math.floor(h1 / 2)} on a kept connection`;
    lines.push(`  ${p}: ${s.sent} sent (${((100 * s.sent) / Math.max(1, r.sent)).toFixed(1)}%), ${s.failures.length} failed; ${who}`);
    lines.push(`    ok by kind: ${JSON.stringify(Object.fromEntries(s.okCounts))}`);
    if (s.resent.length > 0)
      lines.push(
        `    resent on a new connection after their kept one closed, ${r.options.resends === "allowed" ? "allowed (an edge hand-over)" : "each a failure"} (${s.resent.length}):`,
        ...s.resent.slice(0, 10).map((e) => `      ${e.client} ${e.request} (${e.phase}): ${e.what}`),
      );
    lines.push(`    ${latencyLine("all", [...s.latencies.values()].flat())}`);
    for (const [phase, values] of s.latencies) lines.push(`    ${latencyLine(phase, values)}`);
  }
  if (r.h2.events.length > 0) {
    lines.push(`  h2 session events (${r.h2.events.length}):`, ...r.h2.events.slice(0, 20).map((e) => `    ${e}`));
  }
  const reasons = new Map<string, number>();
  for (const f of r.failures) {
    const key = `${f.protocol} ${f.request} (${f.phase}): ${f.what.slice(0, 240)}`;
    reasons.set(key, (reasons.get(key) ?? 0) + 1);
  }
  if (reasons.size > 0) {
    lines.push(
      "  failures by reason:",
      ...[...reasons]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 30)
        .map(([k, n]) => `    ${n} x ${k}`),
    );
  }
  return lines;
}
