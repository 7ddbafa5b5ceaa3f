import { describe, expect, it } from "vitest";
import { check, expectDiagnostic, y } from "./helpers.js";

/**
 * Shape mistakes (types, allowed values, required and unknown fields), one platform.yml each.
 * Every case names the exact message and where it points: `line:col code message`.
 */

const HEAD = 'version: "1.0"\nname: shop\nservices:\n';
/** A valid public fastapi service on lines 4-7, plus extra lines from line 8. */
const api = (extra = "") => `${HEAD}  api:\n    type: fastapi\n    source: ./api\n    public: true\n${extra}`;
/** A postgres service on lines 4-7+ and an api using it. */
const db = (resources: string) =>
  `${HEAD}  db:\n    type: postgres\n    resources:\n${resources}  api:\n    type: fastapi\n    source: ./api\n    public: true\n    env:\n      DATABASE_URL: \${db.url}\n    depends_on: [db]\n`;
const migrate = (lines: string) => api(`    lifecycle:\n      migrate:\n${lines}`);

interface Case {
  name: string;
  yaml: string;
  expect: string;
  hint?: string | RegExp;
}

const cases: Case[] = [
  // top level
  {
    name: "version missing",
    yaml: "name: shop\nservices:\n  api: {type: fastapi, source: ./api, public: true}\n",
    expect: '1:1 missing-field missing required field "version"',
    hint: 'add version: "1.0"',
  },
  {
    name: "version 2.0",
    yaml: api().replace('"1.0"', '"2.0"'),
    expect: '1:10 unsupported-version unsupported version "2.0"; the only version is "1.0"',
  },
  {
    name: "version unquoted",
    yaml: api().replace('"1.0"', "1.0"),
    expect: '1:10 version-not-text must be the text "1.0", not the number 1.0',
    hint: 'quote it: version: "1.0"',
  },
  {
    name: "name missing",
    yaml: api().replace("name: shop\n", ""),
    expect: '1:1 missing-field missing required field "name"',
    hint: "add name: my-app",
  },
  { name: "name is a number", yaml: api().replace("name: shop", "name: 42"), expect: "2:7 wrong-type must be text, not the number 42" },
  {
    name: "services missing",
    yaml: 'version: "1.0"\nname: shop\n',
    expect: '1:1 missing-field missing required field "services"',
    hint: "add services:",
  },
  {
    name: "services is a list",
    yaml: 'version: "1.0"\nname: shop\nservices: []\n',
    expect: "3:11 wrong-type must be a map, not a list",
    hint: "keyed by service name",
  },
  { name: "services empty", yaml: 'version: "1.0"\nname: shop\nservices:\n', expect: "3:1 empty-value has no value; expected a map" },
  { name: "services {}", yaml: 'version: "1.0"\nname: shop\nservices: {}\n', expect: "3:1 no-services no services: declare at least one" },
  {
    name: "top-level typo",
    yaml: api().replace("services:", "servics:"),
    expect: '3:1 unknown-field unknown field "servics" (did you mean "services"?)',
  },
  {
    name: "description is a list",
    yaml: api().replace("name: shop\n", "name: shop\ndescription: [a]\n"),
    expect: "3:14 wrong-type must be text, not a list",
  },
  // service fields
  {
    name: "dependson typo",
    yaml: api("    dependson: [web]\n"),
    expect: '8:5 unknown-field unknown field "dependson" (did you mean "depends_on"?)',
  },
  {
    name: "dependsOn camel case",
    yaml: api("    dependsOn: [web]\n"),
    expect: '8:5 unknown-field unknown field "dependsOn" (did you mean "depends_on"?)',
  },
  {
    name: "environment from compose",
    yaml: api("    environment:\n      A: b\n"),
    expect: '8:5 unknown-field unknown field "environment"',
    hint: "use env:",
  },
  { name: "start is a number", yaml: api("    start: 42\n"), expect: "8:12 wrong-type must be text or a list of text, not the number 42" },
  { name: "start is an empty list", yaml: api("    start: []\n"), expect: "8:12 empty-value the list is empty" },
  { name: "ports from compose", yaml: api('    ports: ["8000:8000"]\n'), expect: '8:5 unknown-field unknown field "ports"', hint: "$PORT" },
  {
    name: "image from compose, beside source",
    yaml: api("    image: python:3.12\n"),
    expect: "8:5 source-and-build has both source and image; use one",
    hint: "image: a prebuilt image",
  },
  {
    name: "type missing",
    yaml: `${HEAD}  api:\n    source: ./api\n    public: true\n`,
    expect: '4:3 missing-field missing required field "type"',
    hint: "add type: fastapi, nextjs, postgres, redis or worker",
  },
  {
    name: "type typo",
    yaml: api().replace("type: fastapi", "type: fastpi"),
    expect: '5:11 unknown-type unknown service type "fastpi" (did you mean "fastapi"?)',
  },
  {
    name: "type case",
    yaml: api().replace("type: fastapi", "type: NextJS"),
    expect: '5:11 unknown-type unknown service type "NextJS" (did you mean "nextjs"?)',
  },
  {
    name: "type unknown",
    yaml: api().replace("type: fastapi", "type: django"),
    expect: '5:11 unknown-type unknown service type "django"',
    hint: "one of: fastapi, nextjs, postgres",
  },
  {
    name: "type is a number",
    yaml: api().replace("type: fastapi", "type: 3"),
    expect: "5:11 invalid-value must be one of fastapi, nextjs, postgres, redis, worker, not the number 3",
  },
  {
    name: "service is text",
    yaml: `${HEAD}  api: fastapi\n`,
    expect: '4:8 wrong-type must be a map, not the text "fastapi"',
    hint: "type: fastapi",
  },
  {
    name: "service is empty",
    yaml: `${HEAD}  api:\n  web:\n    type: nextjs\n    source: ./web\n    public: true\n`,
    expect: "4:3 empty-value has no value; expected a map",
    hint: "at least a type",
  },
  {
    name: "no space after colon",
    yaml: `${HEAD}  api:\n    type:fastapi\n`,
    expect: '5:5 wrong-type must be a map, not the text "type:fastapi"',
    hint: "put a space after the ':': type: fastapi",
  },
  {
    name: "public quoted",
    yaml: api().replace("public: true", 'public: "yes"'),
    expect: '7:13 wrong-type must be true or false, not the text "yes"',
    hint: "write public: true (no quotes)",
  },
  {
    name: "public number",
    yaml: api().replace("public: true", "public: 1"),
    expect: "7:13 wrong-type must be true or false, not the number 1",
  },
  { name: "source empty", yaml: api().replace("source: ./api", 'source: ""'), expect: "6:13 empty-value must not be empty", hint: "./api" },
  {
    name: "source is a map",
    yaml: api().replace("source: ./api", "source: {path: ./api}"),
    expect: "6:13 wrong-type must be text, not a map",
    hint: "write a path",
  },
  // env
  {
    name: "env as a list",
    yaml: api("    env:\n      - A=1\n"),
    expect: "9:7 wrong-type must be a map, not a list",
    hint: "not a list of NAME=value",
  },
  { name: "env value null", yaml: api("    env:\n      A:\n"), expect: "9:7 env-null has no value", hint: 'write "" for an empty value' },
  { name: "env value list", yaml: api("    env:\n      A: [1, 2]\n"), expect: "9:10 env-not-text must be text, not a list" },
  { name: "env value map", yaml: api("    env:\n      A: {b: 1}\n"), expect: "9:10 env-not-text must be text, not a map" },
  // depends_on
  {
    name: "depends_on as text",
    yaml: api("    depends_on: web\n"),
    expect: '8:17 wrong-type must be a list, not the text "web"',
    hint: "write depends_on: [web]",
  },
  { name: "depends_on item number", yaml: api("    depends_on: [1]\n"), expect: "8:18 wrong-type must be text, not the number 1" },
  // resources
  {
    name: "unknown preset",
    yaml: api("    resources: xl\n"),
    expect: '8:16 unknown-preset unknown preset "xl"',
    hint: "small (0.5 CPU, 512Mi)",
  },
  { name: "preset typo", yaml: api("    resources: larg\n"), expect: '8:16 unknown-preset unknown preset "larg" (did you mean "large"?)' },
  { name: "resources number", yaml: api("    resources: 5\n"), expect: "8:16 wrong-type must be a preset name or a map, not the number 5" },
  { name: "preset in object form", yaml: api("    resources: {preset: huge}\n"), expect: '8:25 unknown-preset unknown preset "huge"' },
  {
    name: "resources unknown field",
    yaml: api("    resources: {cpu: 2}\n"),
    expect: '8:17 unknown-field unknown field "cpu"',
    hint: "allowed here: preset, storage, retention",
  },
  {
    name: "storage decimal unit",
    yaml: db("      storage: 10G\n"),
    expect: '7:16 invalid-storage invalid storage size "10G" (did you mean "10Gi"?)',
    hint: "binary units",
  },
  {
    name: "storage lowercase",
    yaml: db("      storage: 10gb\n"),
    expect: '7:16 invalid-storage invalid storage size "10gb" (did you mean "10Gi"?)',
  },
  { name: "storage too small", yaml: db("      storage: 32Mi\n"), expect: "7:16 storage-range storage 32Mi is below 64Mi" },
  { name: "storage too big", yaml: db("      storage: 17Ti\n"), expect: "7:16 storage-range storage 17Ti is above 16Ti" },
  {
    name: "retention unknown",
    yaml: db("      retention: forever\n"),
    expect: '7:18 invalid-value unknown value "forever"',
    hint: "one of: permanent, delete",
  },
  // lifecycle.migrate
  {
    name: "migrate without command",
    yaml: migrate("        timeout: 5m\n"),
    expect: '9:7 missing-field missing required field "command"',
    hint: "[alembic, upgrade, head]",
  },
  {
    name: "command as text",
    yaml: migrate("        command: alembic upgrade head\n"),
    expect: '10:18 wrong-type must be a list, not the text "alembic upgrade head"',
    hint: "write command: [alembic, upgrade, head]",
  },
  { name: "command empty list", yaml: migrate("        command: []\n"), expect: "10:18 empty-value the list is empty" },
  { name: "command empty item", yaml: migrate('        command: [alembic, ""]\n'), expect: "10:28 empty-value must not be empty" },
  {
    name: "on_failure unknown",
    yaml: migrate("        command: [x]\n        on_failure: retry\n"),
    expect: '11:21 invalid-value unknown value "retry"',
    hint: "one of: abort, continue",
  },
  {
    name: "timeout without unit",
    yaml: migrate("        command: [x]\n        timeout: 5\n"),
    expect: "11:18 wrong-type must be text, not the number 5",
    hint: "add a unit: timeout: 5s",
  },
  {
    name: "timeout words",
    yaml: migrate("        command: [x]\n        timeout: 5min\n"),
    expect: '11:18 invalid-duration invalid duration "5min" (did you mean "5m"?)',
  },
  {
    name: "timeout compound",
    yaml: migrate("        command: [x]\n        timeout: 1h30m\n"),
    expect: '11:18 invalid-duration invalid duration "1h30m" (did you mean "90m"?)',
  },
  {
    name: "timeout zero",
    yaml: migrate("        command: [x]\n        timeout: 0s\n"),
    expect: "11:18 timeout-range timeout must be more than 0",
  },
  {
    name: "timeout over a day",
    yaml: migrate("        command: [x]\n        timeout: 25h\n"),
    expect: "11:18 timeout-range timeout 25h is more than 24h",
  },
  {
    name: "lifecycle unknown step",
    yaml: api("    lifecycle:\n      pre: [x]\n"),
    expect: '9:7 unknown-field unknown field "pre"',
    hint: "allowed here: migrate",
  },
  // health, build
  {
    name: "health path without slash",
    yaml: api("    health:\n      http: health\n"),
    expect: '9:13 invalid-health-path health path must start with "/" (did you mean "/health"?)',
  },
  {
    name: "health is a URL",
    yaml: api("    health:\n      http: http://localhost:8000/healthz\n"),
    expect: '9:13 invalid-health-path health path must start with "/" (did you mean "/healthz"?)',
  },
  {
    name: "health unknown field",
    yaml: api("    health: {path: /health}\n"),
    expect: '8:14 unknown-field unknown field "path"',
    hint: "allowed here: http",
  },
  {
    name: "build without source",
    yaml: `${HEAD}  api:\n    type: fastapi\n    build:\n      dockerfile: Dockerfile\n    public: true\n`,
    expect: '6:5 missing-field missing required field "source"',
  },
  {
    name: "build as text",
    yaml: `${HEAD}  api:\n    type: fastapi\n    build: ./api\n    public: true\n`,
    expect: '6:12 wrong-type must be a map, not the text "./api"',
  },
];

describe("invalid platform.yml: shape", () => {
  it.each(cases)("$name", ({ yaml, expect: expected, hint }) => {
    const r = check(yaml);
    expect(r.ok).toBe(false);
    expect(r.config).toBeUndefined();
    expectDiagnostic(r, expected, hint);
  });

  it("has a case per mistake", () => {
    expect(cases.length).toBeGreaterThanOrEqual(55);
  });

  it("the y`` helper dedents", () => {
    expect(y`
      a:
        b: 1
    `).toBe("a:\n  b: 1\n");
  });
});
