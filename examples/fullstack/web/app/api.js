// Server-only helpers for talking to the API. API_URL is read on every request (not at build
// time), so one image works in every environment: the platform injects ${api.url}.

const TIMEOUT_MS = 5000;

export function apiUrl() {
  const url = process.env.API_URL;
  if (!url) throw new Error("API_URL is not set");
  return url.replace(/\/+$/, "");
}

/** The API's /api/status, or a stand-in that says why it could not be read. */
export async function fetchStatus() {
  try {
    const res = await fetch(`${apiUrl()}/api/status`, {
      cache: "no-store",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return { reachable: true, ...(await res.json()) };
  } catch (err) {
    return {
      reachable: false,
      reason: err instanceof Error ? err.message : String(err),
      api: "unreachable",
      database: "unknown",
      event_count: 0,
      latest_event: "",
    };
  }
}

/** POST /api/events; returns an error message, or null when the event was created. */
export async function postEvent(message) {
  try {
    const res = await fetch(`${apiUrl()}/api/events`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ message }),
      cache: "no-store",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (res.status === 201) return null;
    const body = await res.text();
    return `API answered ${res.status}: ${body.slice(0, 200)}`;
  } catch (err) {
    return `API unreachable: ${err instanceof Error ? err.message : String(err)}`;
  }
}
