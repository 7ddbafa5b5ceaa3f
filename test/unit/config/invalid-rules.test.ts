import { describe, expect, it } from "vitest";
import { BASE, check, expectDiagnostic, y } from "./helpers.js";

/**
 * Mistakes only the whole file shows: references, dependencies, names, env, what each type
 * allows, and paths. Each case edits a valid, warning-free file (BASE) in one place.
 */

/** BASE with `from` replaced by `to` (which must be there: a typo in a test must fail loudly). */
function edit(from: string, to: string, text = BASE): string {
  if (!text.includes(from)) throw new Error(`test bug: "${from}" not in the base file`);
  return text.replace(from, () => to); // a function: `$$` in a replacement string would become `$`
}
const API_DEPS = "    depends_on: [database]\n";
const WEB_DEPS = "    depends_on: [api]\n";
const WEB_ENV = "      API_URL: ${api.url}\n";
const API_ENV = "      DATABASE_URL: ${database.url}\n";
const PG = "    type: postgres\n";
const webEnv = (value: string) => edit(WEB_ENV, `      API_URL: ${value}\n`);
const apiEnv = (line: string) => edit(API_ENV, `${API_ENV}${line}\n`);

interface Case {
  name: string;
  yaml: string;
  expect: string;
  hint?: string | RegExp;
}

const threeCycle = y`
  version: "1.0"
  name: shop
  services:
    a:
      type: fastapi
      source: ./api
      public: true
      depends_on: [b]
    b:
      type: fastapi
      source: ./api
      public: true
      depends_on: [c]
    c:
      type: fastapi
      source: ./api
      public: true
      depends_on: [a]
`;

const cases: Case[] = [
  // depends_on
  {
    name: "unknown dependency",
    yaml: edit(API_DEPS, "    depends_on: [dtabase]\n"),
    expect: '12:18 unknown-service unknown service "dtabase" (did you mean "database"?)',
    hint: "services in this file: database, api, web",
  },
  {
    name: "self dependency",
    yaml: edit(WEB_DEPS, "    depends_on: [api, web]\n"),
    expect: "19:23 self-dependency web depends on itself",
    hint: "remove it",
  },
  {
    name: "two-service cycle",
    yaml: edit(API_DEPS, "    depends_on: [database, web]\n"),
    expect: "12:28 dependency-cycle dependency cycle: api -> web -> api",
    hint: "can never start",
  },
  { name: "three-service cycle", yaml: threeCycle, expect: "8:18 dependency-cycle dependency cycle: a -> b -> c -> a" },
  {
    name: "dependency listed twice",
    yaml: edit(WEB_DEPS, "    depends_on: [api, api]\n"),
    expect: '19:23 duplicate-dependency "api" is listed twice',
  },
  // references
  {
    name: "reference to a typo'd service",
    yaml: edit(API_ENV, "      DATABASE_URL: ${dtabase.url}\n"),
    expect: '11:21 unknown-service unknown service "dtabase" in ${dtabase.url} (did you mean "database"?)',
  },
  {
    name: "reference to a renamed service",
    yaml: webEnv("${backend.url}"),
    expect: '18:16 unknown-service unknown service "backend" in ${backend.url}',
    hint: "services in this file: database, api, web",
  },
  {
    name: "reference inside text",
    yaml: webEnv('"http://${ap.url}/v1"'),
    expect: '18:24 unknown-service unknown service "ap" in ${ap.url} (did you mean "api"?)',
  },
  {
    name: "unknown property",
    yaml: webEnv("${api.urll}"),
    expect: '18:16 unknown-property unknown property "urll" in ${api.urll} (did you mean "url"?)',
    hint: "api offers: ${api.url}, ${api.external_url}",
  },
  {
    name: "unknown postgres property",
    yaml: edit(API_ENV, "      DATABASE_URL: ${database.hots}\n"),
    expect: '11:21 unknown-property unknown property "hots" in ${database.hots} (did you mean "host"?)',
    hint: "${database.password}",
  },
  {
    name: "external_url of a private service",
    yaml: edit(
      "    public: true\n    env:\n      API_URL",
      "    public: false\n    env:\n      API_URL",
      apiEnv("      CORS_ORIGINS: ${web.external_url}"),
    ),
    expect: "12:21 not-public ${web.external_url} is the public URL of web, which is not public",
    hint: "set public: true on web, or use ${web.url}",
  },
  {
    name: "external_url of postgres",
    yaml: edit(API_ENV, "      DATABASE_URL: ${database.external_url}\n"),
    expect: "11:21 not-public database is a postgres service and never has a public URL",
    hint: "use ${database.url}",
  },
  {
    name: "connection part of a non-postgres service",
    yaml: webEnv("${api.host}"),
    expect: '18:16 not-postgres "host" is only available on postgres and redis services; api is a fastapi service',
    hint: "use ${api.url}",
  },
  {
    name: "password of a non-postgres service",
    yaml: webEnv("${api.password}"),
    expect: '18:16 not-postgres "password" is only available on postgres and redis services; api is a fastapi service',
  },
  {
    name: "unclosed reference",
    yaml: webEnv("${api.url"),
    expect: '18:16 unclosed-reference unclosed reference "${api.url": missing "}"',
    hint: "$${",
  },
  { name: "empty reference", yaml: webEnv("${}"), expect: '18:16 empty-reference empty reference "${}"' },
  {
    name: "nested reference",
    yaml: webEnv("${a.${api.url}}"),
    expect: '18:16 nested-reference references cannot be nested: "${a.${api.url}}"',
  },
  {
    name: "reference without property",
    yaml: webEnv("${api}"),
    expect: '18:16 malformed-reference malformed reference "${api}"',
    hint: "${<service>.<property>}",
  },
  {
    name: "reference with two properties",
    yaml: webEnv("${api.url.path}"),
    expect: '18:16 malformed-reference malformed reference "${api.url.path}"',
  },
  // what each type allows
  {
    name: "postgres with source",
    yaml: edit(PG, `${PG}    source: ./db\n`),
    expect: "6:5 postgres-source a postgres service takes no source: the platform runs PostgreSQL for you",
  },
  {
    name: "postgres with build",
    yaml: edit(PG, `${PG}    build: {source: ./api}\n`),
    expect: "6:5 postgres-source a postgres service takes no build: the platform runs PostgreSQL for you",
  },
  {
    name: "postgres with migrate",
    yaml: edit(PG, `${PG}    lifecycle:\n      migrate:\n        command: [x]\n`),
    expect: "7:7 postgres-migrate a postgres service has no migration step",
    hint: "the service that owns the schema",
  },
  {
    name: "postgres with health",
    yaml: edit(PG, `${PG}    health: {http: /x}\n`),
    expect: "6:5 postgres-health a postgres service takes no health check: the platform checks the database itself",
  },
  {
    name: "postgres with start",
    yaml: edit(PG, `${PG}    start: postgres -D /data\n`),
    expect: "6:5 postgres-start a postgres service takes no start command: the platform runs PostgreSQL for you",
  },
  {
    name: "public postgres",
    yaml: edit(PG, `${PG}    public: true\n`),
    expect: "6:13 postgres-public a database is never put on the public HTTPS edge",
    hint: "${database.url}",
  },
  {
    name: "source and build",
    yaml: edit("    source: ./api\n", "    source: ./api\n    build: {source: ./api}\n"),
    expect: "9:5 source-and-build has both source and build; use one",
  },
  {
    name: "neither source nor build",
    yaml: edit("    source: ./web\n", ""),
    expect: "13:3 missing-source a nextjs service needs source or build",
    hint: "add source: ./web",
  },
  {
    name: "storage on fastapi",
    yaml: edit("    source: ./api\n", "    source: ./api\n    resources: {storage: 10Gi}\n"),
    expect: "9:17 postgres-only storage is only for postgres and redis services",
  },
  {
    name: "retention on nextjs",
    yaml: edit("    source: ./web\n", "    source: ./web\n    resources: {preset: small, retention: delete}\n"),
    expect: "16:32 postgres-only retention is only for postgres and redis services",
  },
  // names
  {
    name: "project name with uppercase",
    yaml: edit("name: shop", "name: My_Shop"),
    expect: '2:7 invalid-name project name "My_Shop" has uppercase letters',
    hint: 'e.g. "my-shop"',
  },
  {
    name: "project name ending with -",
    yaml: edit("name: shop", "name: shop-"),
    expect: "2:7 invalid-name project name \"shop-\" must not end with '-'",
  },
  {
    name: "project name too long",
    yaml: edit("name: shop", `name: ${"a".repeat(50)}`),
    expect: "2:7 name-too-long project name is 50 characters; at most 43",
  },
  {
    name: "service name with uppercase",
    yaml: edit("  api:\n", "  API:\n"),
    expect: '6:3 invalid-name service name "API" has uppercase letters',
    hint: 'e.g. "api"',
  },
  {
    name: "service name starting with a digit",
    yaml: edit("  web:\n", "  1web:\n"),
    expect: '13:3 invalid-name service name "1web" must start with a letter',
  },
  {
    name: "service name with underscore",
    yaml: edit("  web:\n", "  my_web:\n"),
    expect: "13:3 invalid-name service name \"my_web\" may only contain lowercase letters, digits and '-'",
    hint: 'e.g. "my-web"',
  },
  {
    name: "public host too long",
    yaml: edit("  web:\n", "  a-very-long-frontend-name:\n", edit("name: shop", `name: ${"s".repeat(30)}`)),
    expect: `13:3 name-too-long public host name "${"s".repeat(30)}-a-very-long-frontend-name-<word>-<word>" can be 74 characters; at most 63`,
    hint: "at most 14 characters",
  },
  // env
  { name: "PORT", yaml: apiEnv('      PORT: "8000"'), expect: "12:7 reserved-env PORT is set by the platform", hint: "listens on $PORT" },
  {
    name: "PLATFORM_ prefix",
    yaml: apiEnv("      PLATFORM_TOKEN: x"),
    expect: "12:7 reserved-env names starting with PLATFORM_ are reserved for the platform",
  },
  {
    name: "variable name with a dash",
    yaml: apiEnv("      my-var: x"),
    expect: '12:7 invalid-env-name invalid variable name "my-var"',
    hint: "MY_VAR",
  },
  {
    name: "variable name starting with a digit",
    yaml: apiEnv("      1ABC: x"),
    expect: '12:7 invalid-env-name invalid variable name "1ABC"',
    hint: "_1ABC",
  },
  // warnings
  {
    name: "OTEL_ override (warning)",
    yaml: apiEnv("      OTEL_EXPORTER_OTLP_ENDPOINT: http://x"),
    expect: "12:7 otel-override OTEL_EXPORTER_OTLP_ENDPOINT overrides the OpenTelemetry settings the platform injects",
  },
];

/** Legal but likely mistakes: exit 0, shown. */
const warnings: Case[] = [
  {
    name: "unused private service",
    yaml: `${BASE}  worker:\n    type: fastapi\n    source: ./worker\n`,
    expect: "20:3 unused-service worker is not public and no service depends on it or refers to it",
    hint: "set public: true",
  },
  {
    name: "unused database",
    yaml: edit(API_ENV, "      LOG_LEVEL: info\n"),
    expect: "4:3 unused-database no service refers to this database (${database.url})",
    hint: "DATABASE_URL: ${database.url}",
  },
  {
    name: "public URL in a server-side variable",
    yaml: webEnv("${api.external_url}"),
    expect: "18:16 external-url-server-side API_URL looks like a server-side setting but gets the public URL of api",
    hint: "use ${api.url}",
  },
  {
    name: "reference without depends_on",
    yaml: edit(WEB_DEPS, ""),
    expect: "18:16 missing-dependency web uses ${api.url} but does not depend on api, so it may start first",
    hint: "add api to depends_on of web",
  },
  {
    name: "OTEL_ variable",
    yaml: apiEnv("      OTEL_SERVICE_NAME: shop-api"),
    expect: "12:7 otel-override OTEL_SERVICE_NAME overrides the OpenTelemetry settings the platform injects",
  },
  {
    name: "duplicate dependency",
    yaml: edit(WEB_DEPS, "    depends_on: [api, api]\n"),
    expect: '19:23 duplicate-dependency "api" is listed twice',
  },
];

describe("invalid platform.yml: rules across the file", () => {
  it("BASE itself is valid and warning-free", () => {
    const r = check(BASE);
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
  });

  it.each(cases.filter((c) => !/warning|listed twice/.test(c.name)))("$name", ({ yaml, expect: expected, hint }) => {
    const r = check(yaml);
    expect(r.ok).toBe(false);
    const d = expectDiagnostic(r, expected, hint);
    expect(d.severity).toBe("error");
  });

  it.each(warnings)("warning: $name", ({ yaml, expect: expected, hint }) => {
    const r = check(yaml);
    expect(r.errors).toEqual([]);
    expect(r.ok).toBe(true);
    const d = expectDiagnostic(r, expected, hint);
    expect(d.severity).toBe("warning");
  });

  it("reports every problem together, in file order", () => {
    const yaml = edit(API_DEPS, "    depends_on: [dtabase]\n", webEnv("${backend.url}"));
    const r = check(yaml);
    expect(r.errors.map((d) => `${d.line}:${d.code}`)).toEqual(["12:unknown-service", "18:unknown-service"]);
  });

  it("a reference alone is not a dependency edge: api may name web's public URL while web depends on api", () => {
    const r = check(apiEnv("      CORS_ORIGINS: ${web.external_url}"));
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
  });

  it("browser-facing names may hold public URLs without a warning", () => {
    for (const key of ["NEXT_PUBLIC_API_URL", "CORS_ORIGINS", "ALLOWED_ORIGIN", "OAUTH_REDIRECT_URL", "PUBLIC_URL"]) {
      const r = check(edit(WEB_ENV, `${WEB_ENV}      ${key}: \${api.external_url}\n`));
      expect(r.warnings, key).toEqual([]);
    }
  });

  it("${secrets.NAME} refers to the environment's secrets, not to a service", () => {
    const r = check(apiEnv("      API_TOKEN: ${secrets.API_TOKEN}"));
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
    expect(r.config?.services.api?.env.API_TOKEN).toBe("${secrets.API_TOKEN}");
  });

  it("a secret name must be a variable-style name", () => {
    expectDiagnostic(
      check(apiEnv("      API_TOKEN: ${secrets.api-token}")),
      '12:18 invalid-secret-name invalid secret name "api-token" in ${secrets.api-token}',
      "${secrets.API_TOKEN}",
    );
  });

  it("a service may not be called secrets", () => {
    expectDiagnostic(
      check(edit("  web:\n", "  secrets:\n")),
      '13:3 reserved-name "secrets" is reserved: ${secrets.NAME} refers to the environment\'s secrets',
    );
  });

  it("a secret the environment does not have is a warning naming the command, when the names are known", () => {
    const yaml = apiEnv("      API_TOKEN: ${secrets.API_TOKEN}\n      OTHER: ${secrets.OTHER}");
    const r = check(yaml, { secrets: { names: new Set(["OTHER"]), env: "staging" } });
    expect(r.ok).toBe(true);
    const d = expectDiagnostic(
      r,
      "12:18 secret-not-set secret API_TOKEN is not set in the staging environment: a deploy would stop before building",
      "platform secrets set API_TOKEN --env staging",
    );
    expect(d.severity).toBe("warning");
    expect(r.warnings).toHaveLength(1);
  });

  it("$${ is an escape, not a reference", () => {
    const r = check(webEnv('"${api.url} and $${not.a.reference"'));
    expect(r.errors).toEqual([]);
    expect(r.config?.services.web?.env.API_URL).toBe("${api.url} and $${not.a.reference");
  });
});

describe("many problems", () => {
  const many = (n: number, body: (i: number) => string) =>
    `version: "1.0"\nname: shop\nservices:\n${Array.from({ length: n }, (_, i) => body(i)).join("")}`;

  it("past 200 errors the rest are summed up in one last note", () => {
    const r = check(many(250, (i) => `  s${i}:\n    type: fastapi\n    source: ./api\n    public: true\n    depends_on: [nope${i}]\n`));
    expect(r.errors).toHaveLength(201);
    expect(r.errors[200]).toMatchObject({ code: "too-many-problems", message: "more than 200 errors; the rest are not shown" });
  });

  it("a flood of warnings never hides an error", () => {
    const text = `${many(300, (i) => `  s${i}:\n    type: fastapi\n    source: ./api\n`)}  last:\n    type: fastapi\n    source: ./api\n    public: true\n    env:\n      X: \${nobody.url}\n`;
    const r = check(text);
    expect(r.ok).toBe(false);
    expect(r.errors.map((d) => d.code)).toEqual(["unknown-service"]);
    expect(r.warnings).toHaveLength(201);
    expect(r.warnings[200]!.message).toBe("100 more warnings not shown");
  });
});
