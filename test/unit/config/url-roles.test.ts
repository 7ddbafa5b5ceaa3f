import { describe, expect, it } from "vitest";
import { isServerCallName } from "../../../src/config/url-roles.js";
import { BASE, check } from "./helpers.js";

describe("isServerCallName: a public URL in a variable the server calls, or one it hands out", () => {
  it.each([
    // Addresses a server calls: the internal URL is the one to use.
    ["API_URL", "fastapi", true],
    ["BACKEND_URL", "fastapi", true],
    ["PAYMENTS_BASE_URL", "fastapi", true],
    ["api_url", "fastapi", true],
    ["GRAPHQL_ENDPOINT", "nextjs", true],
    ["RENDER_SERVICE_URL", "nextjs", true],
    // Handed to people, browsers or other parties.
    ["FRONTEND_URL", "nextjs", false],
    ["FRONTEND_URL", "fastapi", false],
    ["SITE_URL", "nextjs", false],
    ["APP_URL", "nextjs", false],
    ["EMAIL_LINK_BASE", "nextjs", false],
    ["PASSWORD_RESET_URL", "nextjs", false],
    ["NEXTAUTH_URL", "nextjs", false],
    ["STRIPE_WEBHOOK_URL", "fastapi", false],
    ["NEXT_PUBLIC_API_URL", "fastapi", false],
    ["CORS_ORIGINS", "nextjs", false],
    ["OAUTH_REDIRECT_URI", "fastapi", false],
    // A Next.js app's public URL with a name that says nothing: a link target, not a call.
    ["BASE_URL", "nextjs", false],
    ["WEB", "nextjs", false],
    // ...while the same name for an API is a call.
    ["BASE_URL", "fastapi", true],
  ] as const)("%s -> %s: %s", (key, type, expected) => {
    expect(isServerCallName(key, type)).toBe(expected);
  });
});

describe("platform validate: the external-url-server-side warning", () => {
  const withApiEnv = (line: string) =>
    BASE.replace("      DATABASE_URL: ${database.url}\n", `      DATABASE_URL: \${database.url}\n${line}\n`);
  const codes = (text: string) => check(text).warnings.map((w) => `${w.code} ${w.message}`);

  it("BASE has the line it edits", () => {
    expect(BASE).toContain("      DATABASE_URL: ${database.url}\n");
  });

  it("is not given for FRONTEND_URL, the web's public URL that the API puts in e-mails", () => {
    expect(codes(withApiEnv("      FRONTEND_URL: ${web.external_url}"))).toEqual([]);
  });

  it("is still given for API_URL getting the API's public URL in the web service", () => {
    const text = BASE.replace("      API_URL: ${api.url}\n", "      API_URL: ${api.external_url}\n");
    expect(codes(text)).toEqual(["external-url-server-side API_URL looks like a server-side setting but gets the public URL of api"]);
  });

  it("is given for a name that says the API calls the web's routes", () => {
    expect(codes(withApiEnv("      WEB_API_URL: ${web.external_url}"))).toEqual([
      "external-url-server-side WEB_API_URL looks like a server-side setting but gets the public URL of web",
    ]);
  });
});
