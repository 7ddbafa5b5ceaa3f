import { describe, expect, it } from "vitest";
import { BASE, check } from "./helpers.js";

/** BASE with custom domains on api (public) and, when given, on web (public) and database. */
function withDomains(api: string, web?: string, database?: string): string {
  const add = (text: string, after: string, value: string) => {
    if (!text.includes(after)) throw new Error(`test bug: "${after}" not in the base file`);
    return text.replace(after, () => `${after}    domains: ${value}\n`);
  };
  let text = add(BASE, "    source: ./api\n    public: true\n", api);
  if (web) text = add(text, "    source: ./web\n    public: true\n", web);
  if (database) text = add(text, "    type: postgres\n", database);
  return text;
}

/** The diagnostic at this config path with this message (its hint checked when given). */
function expectAt(r: ReturnType<typeof check>, path: string, message: string, hint?: string): void {
  const found = [...r.errors, ...r.warnings].find((d) => d.path === path && d.message === message);
  if (!found)
    expect.fail(`expected ${path}: ${message} among:\n${[...r.errors, ...r.warnings].map((d) => `  ${d.path}: ${d.message}`).join("\n")}`);
  if (hint !== undefined) expect(found.hint).toContain(hint);
}

describe("custom domains in platform.yml", () => {
  it("a public service takes DNS names; they are normalized in file order", () => {
    const r = check(withDomains("[shop.example.com, www.shop.example.com]"));
    expect(r.errors).toEqual([]);
    expect(r.config?.services.api?.domains).toEqual(["shop.example.com", "www.shop.example.com"]);
    expect(r.config?.services.web?.domains).toEqual([]);
  });

  it("says what is wrong with a name and how to write it", () => {
    const r = check(withDomains('["https://Shop.Example.com/", Shop.example.com, localhost, "*.example.com", "shop.example.com."]'));
    expectAt(
      r,
      "services.api.domains[0]",
      'domain "https://Shop.Example.com/" is a URL; give the host name alone',
      "write it as shop.example.com",
    );
    expectAt(r, "services.api.domains[1]", 'domain "Shop.example.com" has uppercase letters', "write it as shop.example.com");
    expectAt(r, "services.api.domains[2]", 'domain "localhost" is a single label; a domain has at least two (shop.example.com)');
    expectAt(
      r,
      "services.api.domains[3]",
      'domain "*.example.com" is a wildcard; list each name (a certificate is obtained per name)',
      "write it as example.com",
    );
    expectAt(r, "services.api.domains[4]", 'domain "shop.example.com." ends with a dot', "write it as shop.example.com");
  });

  it("a domain belongs to one service, once", () => {
    const r = check(withDomains("[shop.example.com, shop.example.com]", "[shop.example.com]"));
    expectAt(r, "services.api.domains[1]", 'domain "shop.example.com" is listed twice', "remove the second one");
    expectAt(r, "services.web.domains[0]", 'domain "shop.example.com" is also a domain of service "api"', "keep it on one of them");
  });

  it("only public services have domains: a database never", () => {
    const r = check(withDomains("[shop.example.com]", undefined, "[db.example.com]"));
    expectAt(
      r,
      "services.database.domains",
      "custom domains are served by the public edge, and this service is not public",
      "a database is never public",
    );
  });

  it("a single name instead of a list gets the list to write", () => {
    const r = check(withDomains("shop.example.com"));
    expectAt(r, "services.api.domains", 'must be a list, not the text "shop.example.com"', "write domains: [shop.example.com]");
  });
});
