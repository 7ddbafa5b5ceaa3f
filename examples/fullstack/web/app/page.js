import { addEvent } from "./actions.js";
import { fetchStatus } from "./api.js";

// Rendered on every request: the status must be live, and API_URL is only known at runtime.
export const dynamic = "force-dynamic";

function State({ value }) {
  return <span className={value === "ok" ? "ok" : "error"}>{value}</span>;
}

export default async function Home({ searchParams }) {
  const { error } = await searchParams;
  const status = await fetchStatus();
  return (
    <main>
      <h1>Full-stack example</h1>
      <p>Next.js (this page, rendered on the server) → FastAPI → PostgreSQL.</p>
      <dl>
        <dt>API</dt>
        <dd id="api-status">
          <State value={status.api} />
          {status.reachable ? null : ` (${status.reason})`}
        </dd>
        <dt>Database</dt>
        <dd id="database-status">
          <State value={status.database} />
        </dd>
        <dt>Events</dt>
        <dd id="event-count">{status.event_count}</dd>
        <dt>Latest event</dt>
        <dd id="latest-event">{status.latest_event || "(none yet)"}</dd>
      </dl>
      <form action={addEvent}>
        <input type="text" name="message" placeholder="Something happened" maxLength={500} required />
        <button type="submit">Add event</button>
      </form>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
    </main>
  );
}
