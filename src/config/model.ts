import { SERVICE_TYPES } from "./schema.js";
import type { ServiceType } from "./types.js";

/**
 * A forgiving view of the raw YAML value for the cross-field rules. Rules must run even when
 * parts of the file are malformed (all problems are reported together), so each field is
 * present only when it has the right shape; zod has already reported the ones that do not.
 */
export interface ServiceView {
  name: string;
  /** The service's map, or {} when it is not a map. */
  raw: Record<string, unknown>;
  type?: ServiceType;
  /** undefined when public is missing or malformed: rules about publicness then stay quiet. */
  isPublic?: boolean;
  dependsOn: Array<{ name: string; index: number }>;
  env: Array<{ key: string; value: unknown }>;
  source?: string;
  build?: { source?: string; dockerfile: string };
  hasMigrate: boolean;
  hasHealth: boolean;
}

export interface ConfigView {
  name?: string;
  services: ServiceView[];
  byName: Map<string, ServiceView>;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function own(o: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

export function toConfigView(raw: Record<string, unknown>): ConfigView {
  const name = own(raw, "name");
  const servicesRaw = own(raw, "services");
  const services: ServiceView[] = [];
  if (isRecord(servicesRaw)) {
    for (const svcName of Object.keys(servicesRaw)) services.push(toServiceView(svcName, servicesRaw[svcName]));
  }
  return { ...(typeof name === "string" ? { name } : {}), services, byName: new Map(services.map((s) => [s.name, s])) };
}

function toServiceView(name: string, value: unknown): ServiceView {
  const raw = isRecord(value) ? value : {};
  const type = own(raw, "type");
  const pub = own(raw, "public");
  const deps = own(raw, "depends_on");
  const env = own(raw, "env");
  const source = own(raw, "source");
  const build = own(raw, "build");
  const lifecycle = own(raw, "lifecycle");
  const view: ServiceView = {
    name,
    raw,
    dependsOn: [],
    env: [],
    hasMigrate: isRecord(lifecycle) && own(lifecycle, "migrate") !== undefined,
    hasHealth: own(raw, "health") !== undefined,
  };
  if (typeof type === "string" && (SERVICE_TYPES as readonly string[]).includes(type)) view.type = type as ServiceType;
  if (typeof pub === "boolean") view.isPublic = pub;
  else if (pub === undefined) view.isPublic = false;
  if (Array.isArray(deps)) {
    deps.forEach((d, index) => {
      if (typeof d === "string") view.dependsOn.push({ name: d, index });
    });
  }
  if (isRecord(env)) for (const key of Object.keys(env)) view.env.push({ key, value: env[key] });
  if (typeof source === "string") view.source = source;
  if (isRecord(build)) {
    const bs = own(build, "source");
    const df = own(build, "dockerfile");
    view.build = { dockerfile: typeof df === "string" && df !== "" ? df : "Dockerfile", ...(typeof bs === "string" ? { source: bs } : {}) };
  }
  return view;
}
