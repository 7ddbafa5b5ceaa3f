import { expect } from "vitest";
import { httpsRequest } from "./cli.js";

/** examples/worker's API as the worker tests call it (Docker and Kubernetes): enqueue, then read what the worker wrote. */
export interface JobStats {
  done: number;
  redelivered: number;
  queued: number;
  processing: number;
  workers: string[];
}

export function jobsApi(where: () => { api: string; ca: string }) {
  async function call(method: string, path: string): Promise<Record<string, unknown>> {
    const { api, ca } = where();
    const r = await httpsRequest(`${api}${path}`, ca, { method, timeoutMs: 30_000 });
    expect(r.status, `${method} ${path}: ${r.body}`).toBe(200);
    return JSON.parse(r.body);
  }

  /** Polls until the batch has `count` rows and nothing is left queued or in hand (bounded). */
  async function drained(batch: string, count: number, seconds = 180): Promise<JobStats> {
    const until = Date.now() + seconds * 1000;
    for (;;) {
      const s = (await call("GET", `/stats?batch=${batch}`)) as unknown as JobStats;
      if ((s.done >= count && s.queued === 0 && s.processing === 0) || Date.now() > until) return s;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  return { call, drained };
}

/** examples/worker's platform.yml with one more line in the worker's env (or none). */
export function withWorkerEnv(text: string, line: string | undefined): string {
  const marker = "    start: python -m jobsapp.worker\n    env:\n";
  expect(text).toContain(marker);
  return line ? text.replace(marker, `${marker}      ${line}\n`) : text;
}
