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
      expect(r.status, `${r.body || "(no body)"}; answered by ${r.answeredBy ?? "(no Server header)"}`).toBe(201);
    },
    async messages(api = where().api): Promise<string[]> {
      const r = await httpsRequest(`${api}/api/events?limit=100`, where().ca);
      expect(r.status, `${r.body || "(no body)"}; answered by ${r.answeredBy ?? "(no Server header)"}`).toBe(200);
      return (JSON.parse(r.body) as { message: string }[]).map((e) => e.message).filter((m) => m.startsWith(marker));
    },
  };
}

/**
 * What a poller of the fullstack example asks: a route that fails (503) when the database does.
 * Never `/api/status`, which answers 200 with `database: "error"` by design.
 */
export const POLL_ROUTE = "/api/events?limit=1";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * That the fullstack example's database holds exactly the rows a test wrote, read through its
 * API: the events whose message starts with `marker` (every event when it is "") are `written`,
 * in any order. A count is no proof: `/api/status` answers 200 with `event_count: 0` and
 * `database: "error"` when its query fails, so the API must first say its database answered
 * ("ok"), at the first request: the tests call this right after "Deployment complete", which
 * promises a database its services reach (a new database server replaces the services that
 * connect to it, so no pool holds a connection to the old one). The status's count must agree
 * with the rows listed, and the list must be whole (the API lists 100 at most).
 */
export async function expectRows(api: string, ca: string, written: readonly string[], marker = ""): Promise<void> {
  const status = await databaseAnswered(api, ca);
  const r = await httpsRequest(`${api}/api/events?limit=100`, ca);
  expect(r.status, `GET ${api}/api/events: ${r.body}`).toBe(200);
  const events = (JSON.parse(r.body) as { message: string }[]).map((e) => e.message);
  expect(events.length, "more events than one page of /api/events: the check would not see them all").toBeLessThan(100);
  expect(status.event_count, `/api/status's event_count against the ${events.length} events listed`).toBe(events.length);
  expect(events.filter((m) => m.startsWith(marker)).sort(), `the rows whose message starts with "${marker}"`).toEqual([...written].sort());
}

/** `/api/status`, which must say `database: "ok"` the first time it is asked. */
async function databaseAnswered(api: string, ca: string): Promise<{ database: string; event_count: number }> {
  const r = await httpsRequest(`${api}/api/status`, ca);
  expect(r.status, `GET ${api}/api/status: ${r.body}`).toBe(200);
  const status = JSON.parse(r.body) as { database: string; event_count: number };
  expect(status.database, `GET ${api}/api/status right after the deploy: ${r.body}`).toBe("ok");
  return status;
}

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
