import { expect } from "vitest";
import { httpsRequest } from "./cli.js";

/**
 * The fullstack example's events through its API (/api/events, over HTTPS through the edge):
 * `post` writes one (201 expected), `messages` reads the newest 100 that start with `marker`,
 * newest first. `where` gives the API's URL and the CA at the time of the call; `api` overrides
 * the URL (another environment's).
 */
export function eventsApi(where: () => { api: string; ca: string }, marker: string) {
  return {
    async post(message: string, api = where().api): Promise<void> {
      const r = await httpsRequest(`${api}/api/events`, where().ca, { method: "POST", body: { message } });
      expect(r.status, r.body).toBe(201);
    },
    async messages(api = where().api): Promise<string[]> {
      const r = await httpsRequest(`${api}/api/events?limit=100`, where().ca);
      expect(r.status, r.body).toBe(200);
      return (JSON.parse(r.body) as { message: string }[]).map((e) => e.message).filter((m) => m.startsWith(marker));
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * For a point-in-time recovery: writes `<marker>-A`, notes the moment a second later, and writes
 * `<marker>-B` a second after that; returns the moment between the two rows.
 */
export async function rowsAroundMoment(post: (message: string) => Promise<void>, marker: string): Promise<Date> {
  await post(`${marker}-A`);
  await sleep(1000);
  const between = new Date();
  await sleep(1000);
  await post(`${marker}-B`);
  return between;
}
