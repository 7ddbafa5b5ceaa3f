import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../../src/studio/app.js";
import { Sessions } from "../../../src/studio/auth.js";
import type { StudioDeps } from "../../../src/studio/context.js";
import { DbConsole } from "../../../src/studio/db-console.js";
import { StatsStore } from "../../../src/studio/stats-store.js";

const PORT = 4680;
const sessions = new Sessions();
const deps: StudioDeps = {
  sessions,
  stats: new StatsStore(join(mkdtempSync(join(tmpdir(), "studio-app-")), "stats.sqlite")),
  db: new DbConsole(),
  telemetry: { forScope: () => undefined, all: () => [] },
  writes: new Map(),
};
const ui = new Map([
  ["/index.html", { body: Buffer.from("<!doctype html><div id=root></div>"), type: "text/html; charset=utf-8", immutable: false }],
]);
const docs = new Map([
  ["/guide/studio.html", { body: Buffer.from("<h1>Studio</h1>"), type: "text/html; charset=utf-8", immutable: false }],
  ["/404.html", { body: Buffer.from("<h1>Not found</h1>"), type: "text/html; charset=utf-8", immutable: false }],
]);
const app = buildApp(deps, { port: () => PORT, adminKey: "the-key", ui, docs });
const req = (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
  app.request(`http://127.0.0.1:${PORT}${path}`, { ...init, headers: { host: `127.0.0.1:${PORT}`, ...init.headers } });

async function signIn(): Promise<string> {
  const res = await req(`/auth?token=${sessions.mintToken()}`);
  expect(res.status).toBe(302);
  return /platform_studio=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")![1]!;
}

describe("Studio's HTTP app", () => {
  it("refuses a foreign Host or Origin with 403 before anything else", async () => {
    expect((await req("/api/projects", { headers: { host: "evil.example" } })).status).toBe(403);
    expect((await req("/", { headers: { host: `attacker.example:${PORT}` } })).status).toBe(403);
    expect((await req("/api/projects", { headers: { origin: "http://evil.example" } })).status).toBe(403);
  });

  it("answers 401 to the API without a session, and to a reused or unknown token", async () => {
    expect((await req("/api/projects")).status).toBe(401);
    expect((await req("/api/projects", { headers: { cookie: "platform_studio=forged" } })).status).toBe(401);
    const token = sessions.mintToken();
    expect((await req(`/auth?token=${token}`)).status).toBe(302);
    expect((await req(`/auth?token=${token}`)).status).toBe(401);
  });

  it("sets an HttpOnly, SameSite=Strict cookie and redirects only within Studio", async () => {
    const res = await req(`/auth?token=${sessions.mintToken()}&next=//evil.example/`);
    expect(res.headers.get("set-cookie")).toMatch(/HttpOnly/);
    expect(res.headers.get("set-cookie")).toMatch(/SameSite=Strict/);
    expect(res.headers.get("location")).toBe("/");
    const next = await req(`/auth?token=${sessions.mintToken()}&next=/projects/a/preview`);
    expect(next.headers.get("location")).toBe("/projects/a/preview");
  });

  it("serves the API to a session, with no-store and security headers; writes need JSON", async () => {
    const cookie = `platform_studio=${await signIn()}`;
    const res = await req("/api/session", { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect((await req("/api/logout", { method: "POST", headers: { cookie, "content-type": "text/plain" }, body: "x" })).status).toBe(415);
    expect((await req("/api/projects/nope/envs/preview", { headers: { cookie } })).status).toBe(404);
  });

  it("mints tokens and answers pings only for the CLI's key", async () => {
    expect((await req("/internal/token", { method: "POST" })).status).toBe(403);
    expect((await req("/internal/token", { method: "POST", headers: { "x-studio-key": "wrong" } })).status).toBe(403);
    const res = await req("/internal/token", { method: "POST", headers: { "x-studio-key": "the-key" } });
    expect(sessions.exchange(((await res.json()) as { token: string }).token)).toBeDefined();
    expect((await req("/internal/ping", { headers: { "x-studio-key": "the-key" } })).status).toBe(204);
  });

  it("serves the UI's index.html for client-side routes", async () => {
    const res = await req("/projects/a/preview/logs");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("id=root");
  });

  it("serves the docs site at /docs/ without a session, its pages by clean URL too; anything else there is its 404", async () => {
    const page = await req("/docs/guide/studio.html");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<h1>Studio</h1>");
    // The docs' own inline script (its colour scheme) is allowed there, and only there.
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self' 'unsafe-inline'");
    expect((await req("/docs/guide/studio")).status).toBe(200);
    const gone = await req("/docs/guide/nothing.html");
    expect(gone.status).toBe(404);
    expect(await gone.text()).toContain("Not found");
    expect((await req("/")).headers.get("content-security-policy")).not.toContain("script-src");
  });
});
