import type { Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiError, ApiResponse, ApiRoute, RoutePath } from "./api-types.js";
import type { StudioEnv } from "./context.js";

export type RouteContext<K extends ApiRoute> = Context<StudioEnv, RoutePath<K>>;
/** Answers 200 with exactly the body api-types.ts gives the route. */
export type Ok<K extends ApiRoute> = (body: ApiResponse<K>) => Response;

/**
 * Registers the handler of one route of the contract (api-types.ts) under the key's method
 * and path. The key is both what Hono matches and what types `ok`, so a path, or a body, that
 * strays from the contract fails tsc. Errors go through `fail`.
 */
export function route<K extends ApiRoute>(
  app: Hono<StudioEnv>,
  key: K,
  handler: (c: RouteContext<K>, ok: Ok<K>) => Response | Promise<Response>,
): void {
  const space = key.indexOf(" ");
  const method = key.slice(0, space);
  const path = key.slice(space + 1) as RoutePath<K>;
  // Hono's json() wants a type it can see is JSON; a generic body is one by the contract.
  app.on(method, path, (c) => handler(c, (body) => c.json(body as object)));
}

/** An error answer: `{ error }` plus, for SQL, its SQLSTATE and position. */
export function fail(c: Context, status: ContentfulStatusCode, error: string | ApiError): Response {
  return c.json<ApiError>(typeof error === "string" ? { error } : error, status);
}
