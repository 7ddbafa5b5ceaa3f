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
