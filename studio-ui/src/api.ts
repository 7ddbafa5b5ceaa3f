/** Fetch helpers: every call is same-origin with the session cookie; 401 shows the sign-in page. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string) { super(message); }
}

let onUnauthorized: () => void = () => undefined;
export function setUnauthorizedHandler(f: () => void): void { onUnauthorized = f; }

async function parse<T>(res: Response): Promise<T> {
  const body = await res.json().catch(() => ({}));
  if (res.status === 401) onUnauthorized();
  if (!res.ok) throw new ApiError(res.status, (body as { error?: string }).error ?? `HTTP ${res.status}`);
  return body as T;
}

export const get = <T,>(path: string) => fetch(path, { credentials: "same-origin" }).then((r) => parse<T>(r));
export const post = <T,>(path: string, body: unknown) =>
  fetch(path, { method: "POST", credentials: "same-origin", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => parse<T>(r));

export const envPath = (project: string, env: string) => `/api/projects/${encodeURIComponent(project)}/envs/${encodeURIComponent(env)}`;
