import { z } from "zod";
import { backupSchema } from "./backup-schema.js";
import { notifySchema } from "./notify-schema.js";
import { telemetry } from "./telemetry-schema.js";
import { postgresVersionSchema } from "./postgres-schema.js";
import { healthSchema, redisAuthSchema, replicasSchema, scaleSchema } from "./service-extras-schema.js";
import { cronSchema } from "./cron-schema.js";
import { DURATION_RE, PRESETS, STORAGE_RE } from "./units.js";

/**
 * The platform.yml language as a zod schema. It checks shape (types, allowed values, required
 * and unknown fields); rules that need the whole file (references, cycles, paths) live in
 * rules-*.ts. Every `.describe()` text is published twice: in the JSON Schema that editors
 * use and in the field reference (docs/reference/platform-yml.md), so it states each decision a user would ask about.
 */

export const SERVICE_TYPES = ["fastapi", "nextjs", "postgres", "redis", "worker"] as const;

export const RETENTIONS = ["permanent", "delete"] as const;
export const ON_FAILURE = ["abort", "continue"] as const;

/** DNS label: lowercase letters, digits and '-', starting with a letter, not ending with '-'. */
export const NAME_PATTERN = "^[a-z]([-a-z0-9]*[a-z0-9])?$";
export const ENV_NAME_PATTERN = "^[A-Za-z_][A-Za-z0-9_]*$";

const presetList = Object.entries(PRESETS)
  .map(
    ([name, p]) =>
      `${name} (${p.cpus} CPU, ${p.memoryBytes >= 1024 ** 3 ? `${p.memoryBytes / 1024 ** 3}Gi` : `${p.memoryBytes / 1024 ** 2}Mi`})`,
  )
  .join(", ");

const preset = z.enum(["small", "medium", "large"]).describe(`Resource preset: ${presetList}.`);

const storage = z
  .string()
  .regex(STORAGE_RE)
  .describe(
    'Persistent volume size of a postgres or redis service, in binary units Mi, Gi or Ti, from 64Mi to 16Ti. postgres and redis only. Default "1Gi".',
  )
  .meta({ examples: ["10Gi"] });

const retention = z
  .enum(RETENTIONS)
  .describe(
    'What happens to the data volume when the service or project is removed: "permanent" keeps it, "delete" removes it with the service. postgres and redis only. Default "permanent", so data is never lost by accident.',
  );

const resourcesObject = z
  .strictObject({
    preset: preset.default("small"),
    storage: storage.optional(),
    retention: retention.optional(),
  })
  .describe("Object form: a preset plus, on postgres and redis services only, storage and retention.");

const resources = z
  .union([preset, resourcesObject])
  .default("small")
  .describe(
    `CPU and memory limits: a preset name (${presetList}), or an object {preset, storage, retention}. storage and retention are only allowed on postgres and redis services, which default to storage "1Gi" and retention "permanent".`,
  )
  .meta({ examples: ["small", { preset: "small", storage: "10Gi", retention: "permanent" }] });

const path = (what: string) => z.string().min(1).describe(what);

const build = z
  .strictObject({
    source: path(
      "Directory to build, relative to the project directory (where platform.yml is). Must exist and stay inside the project (no '..' or symlink escapes).",
    ).meta({ examples: ["./api"] }),
    dockerfile: z
      .string()
      .min(1)
      .default("Dockerfile")
      .describe('File name of the container build file inside build.source. Must exist. Default "Dockerfile".')
      .meta({ examples: ["Dockerfile"] }),
  })
  .describe(
    "Build the service from your own Dockerfile. fastapi and nextjs services need exactly one of source or build; postgres and redis take neither.",
  )
  .meta({ examples: [{ source: "./api", dockerfile: "Dockerfile" }] });

const migrate = z
  .strictObject({
    command: z
      .array(z.string().min(1))
      .min(1)
      .describe(
        "Program and arguments, as a list (no shell): run once per deploy after the service's dependencies are up and before it rolls out. Required.",
      )
      .meta({ examples: [["alembic", "upgrade", "head"]] }),
    on_failure: z
      .enum(ON_FAILURE)
      .default("abort")
      .describe('"abort" stops the deployment and leaves the running version in place; "continue" rolls out anyway. Default "abort".'),
    timeout: z
      .string()
      .regex(DURATION_RE)
      .default("5m")
      .describe('How long the migration may run: <n>s, <n>m or <n>h, more than 0 and at most 24h. Default "5m".')
      .meta({ examples: ["5m", "90s"] }),
  })
  .describe("Migration step. Not allowed on postgres or redis services: put it on the service that owns the schema.")
  .meta({ examples: [{ command: ["alembic", "upgrade", "head"], on_failure: "abort", timeout: "5m" }] });

const lifecycle = z
  .strictObject({ migrate: migrate.optional() })
  .describe("Steps run around a rollout.")
  .meta({ examples: [{ migrate: { command: ["alembic", "upgrade", "head"] } }] });

const start = z
  .union([
    z.string().min(1).describe("A command line, run by sh -c (so $PORT and && work)."),
    z.array(z.string().min(1)).min(1).describe("Program and arguments, run as they are (no shell)."),
  ])
  .describe(
    "The command that starts the service, instead of the one the platform finds (like render.yaml's startCommand): a string is run by sh -c (so $PORT expands), a list is run as it is. It must listen on $PORT (a worker listens on nothing). For a `source` service it replaces the discovered start (the FastAPI app, next start); for a `build` service, the Dockerfile's CMD. Required on a worker built from `source` (what it runs; a Python project is built with the FastAPI recipe's image, a Node.js one with the Node recipe's install and build script). Not allowed on postgres or redis services.",
  )
  .meta({ examples: ['uvicorn service.app:create_app --factory --host 0.0.0.0 --port "$PORT"', ["node", "server.js"]] });

const envValue = z
  .union([z.string(), z.number(), z.boolean()])
  .describe(
    'Text; may contain references such as ${api.url}. Numbers and booleans are accepted and kept exactly as written (8000 stays "8000", 1.10 stays "1.10", true stays "true"), because the environment is text anyway. null, lists and maps are errors.',
  );

const env = z
  .record(z.string(), envValue)
  .default({})
  .meta({ propertyNames: { pattern: ENV_NAME_PATTERN } })
  .describe(
    "Environment variables: NAME: value. Names match [A-Za-z_][A-Za-z0-9_]*. PORT is reserved (the platform assigns it and every service must listen on $PORT), names starting with PLATFORM_ are reserved, and OTEL_* names are allowed but warned about (they override the OpenTelemetry settings the platform injects). Default {}.",
  )
  .meta({ examples: [{ API_URL: "${api.url}", LOG_LEVEL: "info" }] });

/**
 * The type-dependent rules, for editors: zod checks them in rules-services.ts with better
 * messages, but an editor only sees the JSON Schema, so they are spelled out for it here.
 */
const typeRules = [
  {
    if: { properties: { type: { enum: ["postgres", "redis"] } }, required: ["type"] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keywords
    then: {
      properties: {
        source: false,
        build: false,
        health: false,
        start: false,
        public: { const: false },
        lifecycle: { properties: { migrate: false } },
        replicas: false,
        scale: false,
      },
    },
  },
  {
    if: { properties: { type: { enum: ["fastapi", "nextjs", "worker"] } }, required: ["type"] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keywords
    then: {
      oneOf: [{ required: ["source"] }, { required: ["build"] }, { required: ["image"] }],
      properties: { resources: { anyOf: [{ type: "string" }, { type: "object", properties: { storage: false, retention: false } }] } },
    },
  },
  {
    if: { properties: { type: { not: { const: "postgres" } } }, required: ["type"] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keywords
    then: { properties: { backup: false, version: false } },
  },
  {
    if: { properties: { type: { not: { const: "redis" } } }, required: ["type"] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keywords
    then: { properties: { auth: false } },
  },
  {
    if: { properties: { type: { const: "worker" } }, required: ["type"] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keywords
    then: {
      properties: { public: { const: false }, health: { required: ["command"], properties: { http: false } }, domains: { maxItems: 0 } },
    },
  },
  {
    if: { properties: { type: { enum: ["fastapi", "nextjs"] } }, required: ["type"] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keywords
    then: { properties: { health: { required: ["http"], properties: { command: false } } } },
  },
  {
    if: { properties: { type: { const: "worker" } }, required: ["type", "source"] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keywords
    then: { required: ["start"] },
  },
];

/** A DNS name of at least two labels, lowercase (as DNS compares names), no trailing dot. */
export const DOMAIN_PATTERN = "^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$";

export const serviceSchema = z
  .strictObject({
    type: z
      .enum(SERVICE_TYPES)
      .describe(
        "What the service is: fastapi (a Python FastAPI app), nextjs (a Next.js app), postgres (a managed PostgreSQL database) redis (a managed Redis 7: a generated password unless auth: none, AOF persistence on a volume, ${<service>.url} is redis://:<password>@<host>:6379/0) or worker (a process with no port and no URL, e.g. a queue consumer: source or build, and start; healthy while it keeps running). Required.",
      ),
    source: path(
      "Directory of the application, relative to the project directory; the platform installs its dependencies and starts it. Must exist and stay inside the project. fastapi and nextjs services need exactly one of source or build; postgres and redis take neither.",
    )
      .meta({ examples: ["./api"] })
      .optional(),
    build: build.optional(),
    image: z
      .string()
      .min(1)
      .regex(/^[^\s]+$/)
      .describe(
        "A prebuilt image to run instead of building, e.g. ghcr.io/org/app:1.4 or a local image: pulled when the engine lacks it, and pinned by its image id in the deployment record, so a rollback runs exactly that image. For fastapi, nextjs and worker services, instead of source or build; start replaces its CMD.",
      )
      .meta({ examples: ["ghcr.io/org/app:1.4"] })
      .optional(),
    start: start.optional(),
    public: z
      .boolean()
      .default(false)
      .describe(
        "true gives the service a public HTTPS URL, https://<project>-<service>-<word>-<word>.<apps domain>. Never allowed on postgres or redis: a data service is not put on the public edge. Default false.",
      ),
    replicas: replicasSchema.optional(),
    scale: scaleSchema.optional(),
    domains: z
      .array(z.string())
      .default([])
      .describe(
        "Custom domains a public service answers on besides its platform URL, e.g. [shop.example.com, www.shop.example.com]. Each gets its own certificate; point its DNS (an A or CNAME record) at the server. The first one is the service's ${<service>.external_url}. Only on public services; a domain belongs to one service of one stack. Default [].",
      )
      .meta({ items: { pattern: DOMAIN_PATTERN, maxLength: 253 }, examples: [["shop.example.com", "www.shop.example.com"]] }),
    env: env,
    depends_on: z
      .array(z.string())
      .default([])
      .describe(
        "Services started (and healthy) before this one. Only depends_on orders startup; a ${x.url} reference alone does not. Cycles are errors. Default [].",
      )
      .meta({ examples: [["database"]] }),
    resources,
    lifecycle: lifecycle.optional(),
    health: healthSchema.optional(),
    backup: backupSchema.optional(),
    version: postgresVersionSchema.optional(),
    auth: redisAuthSchema.optional(),
    cron: cronSchema.optional(),
  })
  .describe("One service. Its key in services is its name.")
  .meta({ allOf: typeRules });

export const configSchema = z
  .strictObject({
    version: z
      .literal("1.0")
      .describe('Version of the platform.yml language. Required; the only version is "1.0" (quoted: an unquoted 1.0 is a number).'),
    name: z
      .string()
      .meta({ pattern: NAME_PATTERN, maxLength: 43 })
      .describe(
        "Project name. Required. A DNS label: lowercase letters, digits and '-', starting with a letter, not ending with '-'. It is part of every public host name, <project>-<service>-<word>-<word>, which must fit in 63 characters (project + service length at most 44).",
      )
      .meta({ examples: ["shop"] }),
    description: z
      .string()
      .optional()
      .describe("Free text about the project. Optional.")
      .meta({ examples: ["The shop's API and frontend"] }),
    services: z
      .record(z.string(), serviceSchema)
      .meta({ propertyNames: { pattern: NAME_PATTERN, maxLength: 43 }, minProperties: 1 })
      .describe(
        "The services, by name. At least one. Names follow the same DNS-label rule as the project name. Order is kept: it is the order shown by validate and deploy.",
      )
      .meta({ examples: [{ api: { type: "fastapi", source: "./api", public: true } }] }),
    telemetry: telemetry.optional(),
    notify: notifySchema.optional(),
  })
  .describe("platform.yml: the services of one project and how they connect.");

export type RawConfig = z.input<typeof configSchema>;
