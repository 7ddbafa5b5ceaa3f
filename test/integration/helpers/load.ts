import { Agent } from "node:https";
import { httpsRequest } from "./cli.js";

/**
 * A bounded load generator for the zero-downtime test: `clients` loops, each sending one
 * request at a time from a fixed mix, half of them on a fresh TLS connection per request and
 * half on one pooled keep-alive connection. Every answer that is not 2xx and every error
 * (reset, timeout, refused, and each CERT_NOT_YET_VALID that httpsRequest retried) is kept
 * with what it was, and every latency is recorded with the phase it was sent in, so that the
 * test can compare a quiet phase with the redeploys.
 */
export interface LoadRequest { name: string; url: string; method?: string; body?: () => unknown }

export interface LoadFailure { request: string; pooled: boolean; phase: string; what: string }

export interface LoadOptions { clients: number; mix: LoadRequest[]; ca: string; maxRequests: number; timeoutMs?: number }

export function startLoad(o: LoadOptions) {
  let phase = "rest";
  let running = true;
  let sent = 0;
  const latencies = new Map<string, number[]>();
  const okCounts = new Map<string, number>();
  const failures: LoadFailure[] = [];
  const agents: Agent[] = [];

  async function client(i: number): Promise<void> {
    const pooled = i % 2 === 1;
    const agent = pooled ? new Agent({ keepAlive: true, maxSockets: 1 }) : new Agent({ keepAlive: false });
    agents.push(agent);
    for (let n = i; running && sent < o.maxRequests; n++) {
      const r = o.mix[n % o.mix.length] as LoadRequest;
      const at = phase;
      sent++;
      const t0 = performance.now();
      // A CERT_NOT_YET_VALID that httpsRequest retried is a failed request (a browser shows an
      // error page), and the retry one more request sent.
      const onRetry = (what: string) => { sent++; failures.push({ request: r.name, pooled, phase: at, what }); };
      try {
        const res = await httpsRequest(r.url, o.ca, { method: r.method, body: r.body?.(), agent, timeoutMs: o.timeoutMs ?? 15_000, onRetry });
        if (res.status < 200 || res.status > 299) failures.push({ request: r.name, pooled, phase: at, what: `HTTP ${res.status} ${res.body.slice(0, 120)}` });
        else okCounts.set(r.name, (okCounts.get(r.name) ?? 0) + 1);
      } catch (e) {
        failures.push({ request: r.name, pooled, phase: at, what: (e as Error).message });
      }
      const list = latencies.get(at) ?? [];
      list.push(performance.now() - t0);
      latencies.set(at, list);
    }
  }

  const done = Promise.all(Array.from({ length: o.clients }, (_, i) => client(i)));
  return {
    /** Latencies from now on are counted under this phase. */
    setPhase: (p: string) => { phase = p; },
    sent: () => sent,
    stop: async () => {
      running = false;
      await done;
      for (const a of agents) a.destroy();
      return { sent, failures, okCounts, latencies };
    },
  };
}

/** The q-quantile (0..1) of a list of numbers, by the nearest-rank method. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}
