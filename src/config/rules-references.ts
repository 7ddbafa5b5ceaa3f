import { didYouMeanSuffix, listNames } from "./did-you-mean.js";
import type { ConfigView, ServiceView } from "./model.js";
import type { DiagnosticSink } from "./sink.js";
import { SECRETS_REF } from "./rules-names.js";
import { parseTemplate, scanTemplate, type TemplateProblem, type TemplateRef } from "./template.js";
import type { Config } from "./types.js";
import { isServerCallName } from "./url-roles.js";

/** Properties every service offers, and the extra connection parts of a postgres service. */
export const SERVICE_PROPERTIES = ["url", "external_url"] as const;
export const POSTGRES_PROPERTIES = ["url", "host", "port", "user", "password", "database"] as const;
export const REDIS_PROPERTIES = ["url", "host", "port", "password"] as const;
const ALL_PROPERTIES: readonly string[] = [...SERVICE_PROPERTIES, ...POSTGRES_PROPERTIES.slice(1)];

/** One `${x.y}` found in an env value, with where it is. */
export interface FoundRef extends TemplateRef {
  from: ServiceView;
  key: string;
  value: string;
}

export interface FoundTemplates {
  refs: FoundRef[];
  problems: Array<TemplateProblem & { from: ServiceView; key: string; value: string }>;
}

export function collectReferences(view: ConfigView): FoundTemplates {
  const out: FoundTemplates = { refs: [], problems: [] };
  for (const svc of view.services) {
    for (const { key, value } of svc.env) {
      if (typeof value !== "string" || !value.includes("${")) continue;
      const scanned = scanTemplate(value);
      for (const r of scanned.refs) out.refs.push({ ...r, from: svc, key, value });
      for (const p of scanned.problems) out.problems.push({ ...p, from: svc, key, value });
    }
  }
  return out;
}

/** Secret names: environment-variable style, since they usually become one. */
export const SECRET_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * What validation knows of the environment's secrets: the names set (never values). Given by
 * the CLI from the stack's settings; without it, only the form of `${secrets.NAME}` is checked.
 */
export interface KnownSecrets {
  readonly names: ReadonlySet<string>;
  readonly env: string;
}

function validateSecretRef(
  ref: FoundRef,
  path: string[],
  at: { offset: number },
  secrets: KnownSecrets | undefined,
  sink: DiagnosticSink,
): void {
  if (!SECRET_NAME_RE.test(ref.property)) {
    sink.error({
      path,
      code: "invalid-secret-name",
      message: `invalid secret name "${ref.property}" in ${ref.text}`,
      hint: "secret names are letters, digits and _, not starting with a digit, e.g. ${secrets.API_TOKEN}",
      at,
    });
  } else if (secrets && !secrets.names.has(ref.property)) {
    sink.warn({
      path,
      code: "secret-not-set",
      at,
      message: `secret ${ref.property} is not set in the ${secrets.env} environment: a deploy would stop before building`,
      hint: `platform secrets set ${ref.property}${secrets.env === "preview" ? "" : ` --env ${secrets.env}`} (reads the value from standard input or a hidden prompt)`,
    });
  }
}

export function validateReferences(view: ConfigView, found: FoundTemplates, sink: DiagnosticSink, secrets?: KnownSecrets): void {
  const names = view.services.map((s) => s.name);
  for (const p of found.problems) {
    const path = ["services", p.from.name, "env", p.key];
    sink.error({
      path,
      code: p.code,
      message: p.message,
      hint: p.hint,
      at: { offset: sink.locator.offsetInString(path, p.value, p.index) },
    });
  }
  for (const ref of found.refs) {
    if (sink.full) return;
    const path = ["services", ref.from.name, "env", ref.key];
    const at = { offset: sink.locator.offsetInString(path, ref.value, ref.index) };
    if (ref.service === SECRETS_REF) {
      validateSecretRef(ref, path, at, secrets, sink);
      continue;
    }
    const target = view.byName.get(ref.service);
    if (!target) {
      sink.error({
        path,
        code: "unknown-service",
        message: `unknown service "${ref.service}" in ${ref.text}${didYouMeanSuffix(ref.service, names)}`,
        hint: `services in this file: ${listNames(names)}`,
        at,
      });
      continue;
    }
    const offered: readonly string[] =
      target.type === "postgres"
        ? POSTGRES_PROPERTIES
        : target.type === "redis"
          ? REDIS_PROPERTIES
          : target.type
            ? SERVICE_PROPERTIES
            : ALL_PROPERTIES;
    const prop = ref.property;
    const s = ref.service;
    const isData = target.type === "postgres" || target.type === "redis";
    if (target.type === "redis" && prop === "password" && target.raw.auth === "none") {
      sink.error({
        path,
        code: "redis-no-password",
        message: `${s} has auth: none: it has no password, so ${ref.text} has no value`,
        hint: `use \${${s}.url} or \${${s}.host} and \${${s}.port}, or remove auth: none`,
        at,
      });
      continue;
    }
    if (target.type === "worker") {
      sink.error({
        path,
        code: "worker-url",
        message: `${s} is a worker: it has no port and no URL, so ${ref.text} has no value`,
        hint: `a worker reaches others (\${x.url}); others reach it through a queue, e.g. a redis service both use`,
        at,
      });
      continue;
    }
    if (target.type && !isData && (POSTGRES_PROPERTIES as readonly string[]).includes(prop) && prop !== "url") {
      sink.error({
        path,
        code: "not-postgres",
        message: `"${prop}" is only available on postgres and redis services; ${s} is a ${target.type} service`,
        hint: `use \${${s}.url} for its internal URL`,
        at,
      });
    } else if (prop === "external_url" && isData) {
      sink.error({
        path,
        code: "not-public",
        message: `${s} is a ${target.type} service and never has a public URL`,
        hint: `use \${${s}.url}, its internal connection string`,
        at,
      });
    } else if (!ALL_PROPERTIES.includes(prop) || !offered.includes(prop)) {
      sink.error({
        path,
        code: "unknown-property",
        message: `unknown property "${prop}" in ${ref.text}${didYouMeanSuffix(prop, offered)}`,
        hint: `${s} offers: ${offered.map((p) => `\${${s}.${p}}`).join(", ")}`,
        at,
      });
    } else if (prop === "external_url" && target.isPublic === false) {
      sink.error({
        path,
        code: "not-public",
        message: `${ref.text} is the public URL of ${s}, which is not public`,
        hint: `set public: true on ${s}, or use \${${s}.url} for calls from server to server`,
        at,
      });
    } else if (prop === "external_url" && target !== ref.from && isServerCallName(ref.key, target.type)) {
      sink.warn({
        path,
        code: "external-url-server-side",
        message: `${ref.key} looks like a server-side setting but gets the public URL of ${s}`,
        hint: `for calls from server to server use \${${s}.url}, the internal URL; keep external_url for what browsers use (NEXT_PUBLIC_*, CORS origins)`,
        at,
      });
    }
  }
}

/** The secret names a config refers to, in file order, each once. */
export function referencedSecrets(config: Config): string[] {
  const names: string[] = [];
  for (const s of Object.values(config.services)) {
    for (const value of Object.values(s.env)) {
      for (const p of parseTemplate(value))
        if (p.kind === "ref" && p.service === SECRETS_REF && !names.includes(p.property)) names.push(p.property);
    }
  }
  return names;
}
