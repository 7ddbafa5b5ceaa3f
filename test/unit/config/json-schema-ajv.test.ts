import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { SCHEMA_FILE } from "../../../src/config/json-schema.js";

/**
 * The published JSON Schema, checked by a real JSON Schema validator (what editors run): it
 * compiles, accepts the examples, and refuses what validate refuses on shape.
 */
const ajv = new Ajv({ allErrors: true, strict: false });
const check = ajv.compile(JSON.parse(readFileSync(SCHEMA_FILE, "utf8")));
const load = (rel: string) => parse(readFileSync(join("examples", rel, "platform.yml"), "utf8"));

/**
 * The parts of examples/fullstack/platform.yml that the cases below change, as parsed YAML: the
 * values are `unknown` because each case writes one the schema must refuse.
 */
interface Service {
  [field: string]: unknown;
  resources: Record<string, unknown>;
  lifecycle: { migrate: Record<string, unknown> };
}
interface Fullstack {
  version: unknown;
  services: { api: Service; database: Service; web?: Service; Web?: Service };
}

describe("schema/platform.schema.json with ajv", () => {
  it.each(["catalog", "fullstack"])("accepts examples/%s", (name) => {
    expect(check(load(name)), JSON.stringify(check.errors)).toBe(true);
  });

  it.each([
    [
      "an unknown field",
      (d: Fullstack) => {
        d.services.api.dependson = ["database"];
      },
    ],
    [
      "a wrong version",
      (d: Fullstack) => {
        d.version = "2.0";
      },
    ],
    [
      "an unknown type",
      (d: Fullstack) => {
        d.services.api.type = "django";
      },
    ],
    [
      "public as text",
      (d: Fullstack) => {
        d.services.api.public = "yes";
      },
    ],
    [
      "a bad storage unit",
      (d: Fullstack) => {
        d.services.database.resources.storage = "10GB";
      },
    ],
    [
      "an unknown retention",
      (d: Fullstack) => {
        d.services.database.resources.retention = "forever";
      },
    ],
    [
      "a non-list migrate command",
      (d: Fullstack) => {
        d.services.api.lifecycle.migrate.command = "alembic upgrade head";
      },
    ],
    [
      "auth on a service that is not redis",
      (d: Fullstack) => {
        d.services.database.auth = "none";
      },
    ],
    [
      "a health command on a fastapi service",
      (d: Fullstack) => {
        d.services.api.health = { command: "true" };
      },
    ],
    [
      "a service name with capitals",
      (d: Fullstack) => {
        d.services.Web = d.services.web;
        delete d.services.web;
      },
    ],
  ])("refuses %s", (_what, edit) => {
    const doc = load("fullstack");
    edit(doc);
    expect(check(doc)).toBe(false);
  });
});
