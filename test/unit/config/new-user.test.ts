import { describe, expect, it } from "vitest";
import { formatDiagnostic } from "../../../src/config/index.js";
import { check, y } from "./helpers.js";

/**
 * Trying platform.yml as a new user: the usual first mistakes. Each message must say where,
 * what is wrong, and what to do, without reading any documentation.
 */

const START = y`
  version: "1.0"
  name: shop
  services:
    database:
      type: postgres
    api:
      type: fastapi
      source: ./api
      public: true
      env:
        DATABASE_URL: \${database.url}
      depends_on: [database]
`;

function report(text: string): string[] {
  const r = check(text);
  return [...r.errors, ...r.warnings].map((d) => `${formatDiagnostic(d)}${d.hint ? ` -- ${d.hint}` : ""}`);
}

describe("a new user's first mistakes", () => {
  it("starts from a valid file", () => {
    expect(report(START)).toEqual([]);
  });

  it("a typo'd key: names the key and the right one", () => {
    expect(report(START.replace("depends_on", "dependson"))).toContain(
      'platform.yml:12:5 services.api.dependson: unknown field "dependson" (did you mean "depends_on"?) -- allowed here: type, source, build, image, start, public, replicas, scale, domains, env, depends_on, resources, lifecycle, health, backup, version, auth, cron',
    );
  });

  it("wrong indentation: names the line and the rule", () => {
    expect(report(START.replace("    source: ./api", "   source: ./api"))).toEqual([
      "platform.yml:8:1 wrong indentation: all mapping items must start at the same column -- fields of the same map must start in the same column; indent nested fields with spaces, 2 per level",
    ]);
  });

  it("a missing quote: points at where the string starts", () => {
    expect(report(START.replace('"1.0"', '"1.0'))).toEqual([
      "platform.yml:13:1 a quoted string is not closed -- add the closing quote; the string starts at line 1, column 10",
    ]);
  });

  it("a reference to a renamed service: lists the services there are", () => {
    expect(report(START.replace("  database:\n    type", "  db:\n    type").replace("[database]", "[db]"))).toEqual([
      'platform.yml:11:21 services.api.env.DATABASE_URL: unknown service "database" in ${database.url} -- services in this file: db, api',
      "platform.yml:4:3 warning: services.db: no service refers to this database (${db.url}) -- give its connection string to a service, e.g. DATABASE_URL: ${db.url}",
    ]);
  });

  it("a port from another tool: says the platform assigns it", () => {
    expect(report(START.replace("    public: true\n", "    public: true\n    ports: [8000]\n"))).toContain(
      'platform.yml:10:5 services.api.ports: unknown field "ports" -- remove it: every service listens on $PORT, which the platform assigns',
    );
  });

  it("a compose-style env list: says it is a map", () => {
    const out = report(START.replace("      DATABASE_URL: ${database.url}", "      - DATABASE_URL=${database.url}"));
    expect(out[0]).toBe(
      "platform.yml:11:7 services.api.env: must be a map, not a list -- env is a map of NAME: value lines, not a list of NAME=value",
    );
  });

  it("an unquoted version: says to quote it", () => {
    expect(report(START.replace('"1.0"', "1.0"))).toEqual([
      'platform.yml:1:10 version: must be the text "1.0", not the number 1.0 -- quote it: version: "1.0"',
    ]);
  });
});
