import type { PathSeg } from "./locate.js";
import { configSchema } from "./schema.js";

/** What shape-issues.ts says at each place in platform.yml: the fields there, and the hints people need. */

/** `services.api.env.X` -> `services.*.env.*`, `command[2]` -> `command[]`: keys for the tables below. */
export function toPattern(path: readonly PathSeg[]): string {
  let out = "";
  path.forEach((seg, i) => {
    const prev = path[i - 1];
    if (typeof seg === "number") out += "[]";
    else if (prev === "services" && i === 1) out += ".*";
    else if (prev === "env" && i === 3) out += ".*";
    else out += out === "" ? seg : `.${seg}`;
  });
  return out;
}

/** A zod schema's definition, as far as the walk below reads it. */
interface Def {
  type: string;
  shape?: Record<string, { _zod: { def: Def } }>;
  innerType?: { _zod: { def: Def } };
  options?: { _zod: { def: Def } }[];
  valueType?: { _zod: { def: Def } };
  in?: { _zod: { def: Def } };
}

/**
 * Fields allowed at each level, for did-you-mean on unknown fields: read from the schema itself,
 * so a field added there is known here (a hand-kept list once lacked telemetry and domains).
 */
function fieldsOf(def: Def, pattern: string, out: Record<string, string[]>): Record<string, string[]> {
  if (def.type === "optional" || def.type === "default" || def.type === "nullable") return fieldsOf(def.innerType!._zod.def, pattern, out);
  if (def.type === "pipe") return fieldsOf(def.in!._zod.def, pattern, out);
  if (def.type === "union") {
    for (const o of def.options ?? []) fieldsOf(o._zod.def, pattern, out);
    return out;
  }
  if (def.type === "record") return fieldsOf(def.valueType!._zod.def, `${pattern}.*`, out);
  if (def.type !== "object" || !def.shape) return out;
  const shape = typeof def.shape === "function" ? ((def.shape as () => Def["shape"])() ?? {}) : def.shape;
  out[pattern] = Object.keys(shape);
  for (const [key, field] of Object.entries(shape)) fieldsOf(field._zod.def, pattern === "" ? key : `${pattern}.${key}`, out);
  return out;
}

export const FIELDS: Record<string, string[]> = fieldsOf((configSchema as unknown as { _zod: { def: Def } })._zod.def, "", {});

/** Fields people bring from other tools, and what to write here instead. */
export const FOREIGN_FIELDS: Record<string, string> = {
  environment: "use env: (a map of NAME: value)",
  ports: "remove it: every service listens on $PORT, which the platform assigns",
  port: "remove it: every service listens on $PORT, which the platform assigns",
  dockerfile: "put it under build: {source: ./dir, dockerfile: Dockerfile}",
  healthcheck: "use health: {http: /health}",
  command: "the start command comes from source or your Dockerfile; for migrations use lifecycle.migrate.command",
  volumes: "use resources: {storage: 10Gi} on a postgres service",
  replicas: "not supported in version 1.0",
  depends: "use depends_on: [service, ...]",
};

export const MISSING_HINTS: Record<string, string> = {
  version: 'add version: "1.0" at the top of the file',
  name: "add name: my-app at the top of the file (lowercase letters, digits and '-')",
  services: "add services: with at least one service, e.g.\n  services:\n    api:\n      type: fastapi\n      source: ./api",
  "services.*.type": "add type: fastapi, nextjs, postgres, redis or worker",
  "services.*.build.source": "add source: ./dir, the directory to build",
  "services.*.lifecycle.migrate.command": "add command: [program, arg, ...], e.g. command: [alembic, upgrade, head]",
  "services.*.health.http": "add http: /health (the path of a health endpoint)",
};

export const EXPECTED: Record<string, string> = {
  string: "text",
  boolean: "true or false",
  array: "a list",
  object: "a map",
  record: "a map",
  number: "a number",
  int: "a whole number",
};

export function emptyHint(pattern: string): string | undefined {
  if (pattern.endsWith(".command")) return "list the program and its arguments, e.g. command: [alembic, upgrade, head]";
  if (pattern.endsWith(".command[]")) return "remove the empty item, or quote the argument you meant";
  if (pattern.endsWith(".source")) return "write the directory, e.g. ./api";
  if (pattern.endsWith(".dockerfile")) return 'write the file name, or remove the line for the default "Dockerfile"';
  return undefined;
}

export function nullHint(pattern: string): string | undefined {
  if (pattern === "services") return MISSING_HINTS.services;
  if (pattern === "services.*") return "a service needs at least a type, e.g. type: fastapi";
  if (pattern.endsWith(".env") || pattern.endsWith(".depends_on") || pattern.endsWith(".lifecycle") || pattern.endsWith(".health")) {
    return "fill it in or remove the line";
  }
  return "fill in a value or remove the line";
}
