import { isScalar } from "yaml";
import type { z } from "zod";
import type { Locator } from "./locate.js";
import type { configSchema } from "./schema.js";
import type { Config, ResourcesConfig, ServiceConfig } from "./types.js";
import { DEFAULT_SAMPLE_RATIO } from "./telemetry-schema.js";
import { notifyChannelsOf } from "./notify-schema.js";
import { parseDuration, parseStorage, PRESETS } from "./units.js";

type Parsed = z.output<typeof configSchema>;
type ParsedService = Parsed["services"][string];

/** Defaults that depend on the service type, so zod cannot apply them. */
const POSTGRES_DEFAULTS = { storage: "1Gi", retention: "permanent" } as const;

/** The validated file -> the Config later stages use: defaults applied, units in numbers. */
export function toConfig(parsed: Parsed, locator: Locator): Config {
  const services: Record<string, ServiceConfig> = {};
  for (const [name, svc] of Object.entries(parsed.services)) services[name] = toServiceConfig(name, svc, locator);
  return {
    version: parsed.version,
    name: parsed.name,
    ...(parsed.description !== undefined ? { description: parsed.description } : {}),
    services,
    telemetry: { sampleRatio: parsed.telemetry?.sample_ratio ?? DEFAULT_SAMPLE_RATIO },
    ...(parsed.notify?.length ? { notify: notifyChannelsOf(parsed) } : {}),
  };
}

function toServiceConfig(name: string, svc: ParsedService, locator: Locator): ServiceConfig {
  const out: ServiceConfig = {
    name,
    type: svc.type,
    public: svc.public,
    domains: [...svc.domains],
    env: toEnv(name, svc.env, locator),
    depends_on: [...new Set(svc.depends_on)],
    resources: toResources(svc),
  };
  if (svc.source !== undefined) out.source = svc.source;
  if (svc.build !== undefined) out.build = { source: svc.build.source, dockerfile: svc.build.dockerfile };
  if (svc.image !== undefined) out.image = svc.image;
  if (svc.replicas !== undefined && svc.replicas > 1) out.replicas = svc.replicas;
  // The fewest copies are what runs without an autoscaler (Docker) and what a rollout starts from.
  if (svc.scale !== undefined) {
    out.scale = { ...svc.scale };
    if (svc.scale.min > 1) out.replicas = svc.scale.min;
  }
  if (svc.start !== undefined) out.start = typeof svc.start === "string" ? svc.start : [...svc.start];
  if (svc.health !== undefined) {
    const { http, command } = svc.health;
    out.health = {
      ...(http !== undefined ? { http } : {}),
      ...(command !== undefined ? { command: typeof command === "string" ? command : [...command] } : {}),
    };
  }
  if (svc.backup !== undefined) out.backup = { ...svc.backup };
  if (svc.version !== undefined) out.version = String(svc.version);
  if (svc.auth !== undefined) out.auth = svc.auth;
  if (svc.cron?.length) out.cron = svc.cron.map((j) => ({ ...j, command: typeof j.command === "string" ? j.command : [...j.command] }));
  const m = svc.lifecycle?.migrate;
  if (m !== undefined) out.migrate = { command: [...m.command], on_failure: m.on_failure, timeoutSeconds: parseDuration(m.timeout) ?? 300 };
  return out;
}

/**
 * Numbers and booleans are kept exactly as written in the file ("1.10", "0x1F", "true"), not
 * as JavaScript prints them (1.1, 31): the environment is text, and what you wrote is what you get.
 */
function toEnv(service: string, env: Record<string, string | number | boolean>, locator: Locator): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (typeof value === "string") {
      out[key] = value;
      continue;
    }
    const node = locator.find(["services", service, "env", key]).value;
    out[key] = isScalar(node) && typeof node.source === "string" && node.source !== "" ? node.source : String(value);
  }
  return out;
}

function toResources(svc: ParsedService): ResourcesConfig {
  const r = svc.resources;
  const preset = typeof r === "string" ? r : r.preset;
  const out: ResourcesConfig = { preset, ...PRESETS[preset] };
  if (svc.type === "postgres" || svc.type === "redis") {
    const storage = (typeof r === "object" ? r.storage : undefined) ?? POSTGRES_DEFAULTS.storage;
    out.storage = storage;
    out.storageWritten = typeof r === "object" && r.storage !== undefined;
    out.storageBytes = parseStorage(storage) ?? 0;
    out.retention = (typeof r === "object" ? r.retention : undefined) ?? POSTGRES_DEFAULTS.retention;
  }
  return out;
}
