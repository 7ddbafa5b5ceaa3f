import { Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { SESSION_COOKIE, allowedHost, sameSecret } from "./auth.js";
import type { StudioDeps, StudioEnv } from "./context.js";
import { databaseRoutes } from "./routes-db.js";
import { environmentRoutes } from "./routes-env.js";
import { metricsRoutes } from "./routes-metrics.js";
import { DOCS_BASE, docsFile } from "./docs-site.js";
import type { UiFile } from "./static.js";
import { fail, route } from "./typed-route.js";

const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  // The sign-in URL carries a token: never pass it on.
  "referrer-policy": "no-referrer",
};

export interface AppOptions {
  port: () => number;
  adminKey: string;
  ui: Map<string, UiFile>;
  /** The built docs site (docs-site.ts), served at DOCS_BASE. */
  docs?: Map<string, UiFile>;
}

/** The docs site's own scripts set its colour scheme inline before it renders: allowed there, and nowhere else. */
const DOCS_CSP =
  "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/**
 * The Studio HTTP app. Order matters: the Host/Origin check runs first (403), then the
 * sign-in exchange, then the session check on every /api route (401).
 */
export function buildApp(deps: StudioDeps, o: AppOptions): Hono<StudioEnv> {
  const app = new Hono<StudioEnv>();

  app.use("*", async (c, next) => {
    if (!allowedHost(c.req.header("host"), c.req.header("origin"), o.port()))
      return c.text("Forbidden: Studio answers only on its own loopback address\n", 403);
    await next();
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) c.header(k, v);
    if (c.req.path.startsWith(DOCS_BASE)) c.header("content-security-policy", DOCS_CSP);
  });

  // The CLI mints sign-in tokens with the key in the 0600 state file.
  route(app, "POST /internal/token", (c, ok) => {
    if (!sameSecret(c.req.header("x-studio-key"), o.adminKey)) return fail(c, 403, "forbidden");
    return ok({ token: deps.sessions.mintToken() });
  });

  // Liveness for the CLI: a Studio answering with the same key is the one in the state file.
  route(app, "GET /internal/ping", (c) =>
    sameSecret(c.req.header("x-studio-key"), o.adminKey) ? c.body(null, 204) : fail(c, 403, "forbidden"),
  );

  app.get("/auth", (c) => {
    const session = deps.sessions.exchange(c.req.query("token") ?? "");
    if (!session) return c.text("This sign-in link was used already or has expired. Run `platform studio` for a new one.\n", 401);
    setCookie(c, SESSION_COOKIE, session, { httpOnly: true, sameSite: "Strict", path: "/", maxAge: 7 * 24 * 3600 });
    const next = c.req.query("next") ?? "/";
    return c.redirect(next.startsWith("/") && !next.startsWith("//") ? next : "/", 302);
  });

  app.use("/api/*", async (c, next) => {
    const session = getCookie(c, SESSION_COOKIE);
    if (!session || !deps.sessions.isValid(session))
      return fail(c, 401, "not signed in: run `platform studio` and open the link it prints");
    c.set("session", session);
    c.header("cache-control", "no-store");
    // Cross-site form posts cannot send JSON without a preflight, which Studio never answers.
    if (c.req.method !== "GET" && !(c.req.header("content-type") ?? "").startsWith("application/json")) return fail(c, 415, "send JSON");
    await next();
  });

  route(app, "GET /api/session", (_c, ok) => ok({ signedIn: true }));
  route(app, "POST /api/logout", (c, ok) => {
    deps.sessions.end(c.get("session"));
    deleteCookie(c, SESSION_COOKIE, { path: "/" });
    return ok({ signedIn: false });
  });
  environmentRoutes(app, deps);
  databaseRoutes(app, deps);
  metricsRoutes(app, deps);
  app.all("/api/*", (c) => fail(c, 404, "no such endpoint"));

  // The docs site: its pages and assets, a 404 page for anything else under it.
  app.get(`${DOCS_BASE}*`, (c) => {
    const f = o.docs && docsFile(o.docs, c.req.path);
    if (!f) {
      const missing = o.docs?.get("/404.html");
      if (!missing) return c.text("The docs site is not built: run npm run docs (npm run setup builds it too)\n", 404);
      c.header("content-type", missing.type);
      return c.body(new Uint8Array(missing.body), 404);
    }
    c.header("content-type", f.type);
    c.header("cache-control", f.immutable ? "public, max-age=31536000, immutable" : "no-cache");
    return c.body(new Uint8Array(f.body));
  });

  // The UI: its files, and index.html for every other path (client-side routes).
  app.get("*", (c) => {
    const f = o.ui.get(c.req.path) ?? o.ui.get("/index.html");
    if (!f) return c.text("The Studio UI is not built: run npm run build:studio-ui (npm run setup does it too)\n", 500);
    c.header("content-type", f.type);
    c.header("cache-control", f.immutable ? "public, max-age=31536000, immutable" : "no-cache");
    return c.body(new Uint8Array(f.body));
  });
  return app;
}
