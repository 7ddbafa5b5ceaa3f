/**
 * Fetch helpers: every call is same-origin with the session cookie; 401 shows the sign-in page.
 * Calls name a route of the server's contract (src/studio/api-types.ts) and its parameters, so
 * the path, the query, the body and the answer are all checked by `tsc -p studio-ui`.
 */
import type { ApiBody, ApiQuery, ApiResponse, ApiRoute, PathParams, PathWith } from "../../src/studio/api-types";

// Type-only: erased from the bundle, which imports nothing of the server.
export type * from "../../src/studio/api-types";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

let onUnauthorized: () => void = () => undefined;
export function setUnauthorizedHandler(f: () => void): void {
  onUnauthorized = f;
}

async function parse<T>(res: Response): Promise<T> {
  const body: unknown = await res.json().catch(() => ({}));
  if (res.status === 401) onUnauthorized();
  if (!res.ok) throw new ApiError(res.status, (body as { error?: string }).error ?? `HTTP ${res.status}`);
  return body as T;
}

type QueryValue = string | number | undefined;

/** A route's URL: its `:params` filled in (encoded), then its query, undefined values left out. */
function apiUrl<P extends string>(path: P, params: PathParams<P>, query?: object): string {
  const values: Record<string, string> = params;
  const url = path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(values[name] ?? ""));
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries((query ?? {}) as Record<string, QueryValue>)) if (v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return s ? `${url}?${s}` : url;
}

/** The query argument: required when the route needs one of its fields, else optional. */
type QueryArg<K extends ApiRoute> = Record<string, never> extends ApiQuery<K> ? [query?: ApiQuery<K>] : [query: ApiQuery<K>];

export function get<P extends PathWith<"GET", "response">>(
  path: P,
  params: PathParams<P>,
  ...query: QueryArg<`GET ${P}`>
): Promise<ApiResponse<`GET ${P}`>> {
  return fetch(apiUrl(path, params, query[0]), { credentials: "same-origin" }).then((r) => parse(r));
}

export function post<P extends PathWith<"POST", "response">>(
  path: P,
  params: PathParams<P>,
  body: ApiBody<`POST ${P}`>,
  ...query: QueryArg<`POST ${P}`>
): Promise<ApiResponse<`POST ${P}`>> {
  const headers = { "content-type": "application/json" };
  const init: RequestInit = { method: "POST", credentials: "same-origin", headers, body: JSON.stringify(body) };
  return fetch(apiUrl(path, params, query[0]), init).then((r) => parse(r));
}

/** The URL of a server-sent events route, for an EventSource; its events' data are the route's `events`. */
export function eventsUrl<P extends PathWith<"GET", "events">>(path: P, params: PathParams<P>, ...query: QueryArg<`GET ${P}`>) {
  return apiUrl(path, params, query[0]);
}
