import type { BaseImageSet } from "../plan/types.js";
import { homePaths } from "./layout.js";
import { readRecord } from "./records.js";

/** Public images by default; the set-up writes images.json when it built local ones. */
export const PUBLIC_IMAGES: BaseImageSet = {
  python: "python:3.11-slim",
  node: "node:22-slim",
  postgres: "postgres:17",
  caddy: "caddy:2",
  redis: "redis:7",
};

type Role = "python" | "node" | "postgres" | "caddy" | "redis";
const ROLES = Object.keys(PUBLIC_IMAGES) as Role[];

/** images.json: the roles' images, and the catalogues of other versions (version -> tag), built on first need. */
interface ImagesRecord extends Record<Role, string> {
  "python-versions": Record<string, string>;
  "node-versions": Record<string, string>;
  "postgres-versions": Record<string, string>;
}

function stringMap(value: unknown): Record<string, string> | undefined {
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  const entries = Object.entries(value).filter((e): e is [string, string] => typeof e[1] === "string");
  return entries.length ? Object.fromEntries(entries) : undefined;
}

/**
 * The base images of this machine: the set-up's record over the public ones.
 * PLATFORM_<ROLE>_IMAGE (e.g. PLATFORM_POSTGRES_IMAGE) puts a team's own image in one role; a
 * team's Python or Node image is then the only one of that language (no catalogue).
 */
export function baseImages(): BaseImageSet {
  const record = readRecord<ImagesRecord>(homePaths.imagesFile());
  // Every image the set-up recorded (the roles, and its Debian base), as before the catalogues.
  const images: Record<string, string> = { ...(PUBLIC_IMAGES as Record<Role, string>), ...stringMap(record) };
  for (const role of ROLES) {
    const override = process.env[`PLATFORM_${role.toUpperCase()}_IMAGE`];
    if (override) images[role] = override;
  }
  const pythonVersions = process.env.PLATFORM_PYTHON_IMAGE ? undefined : stringMap(record["python-versions"]);
  const nodeVersions = process.env.PLATFORM_NODE_IMAGE ? undefined : stringMap(record["node-versions"]);
  const postgresVersions = process.env.PLATFORM_POSTGRES_IMAGE ? undefined : stringMap(record["postgres-versions"]);
  // PLATFORM_OTEL_LAYERS (comma-separated tags) stands in for the file, as the roles' variables do.
  // The layers are the OpenTelemetry layer images the set-up built (see recipes/opentelemetry.ts).
  const layers =
    process.env.PLATFORM_OTEL_LAYERS !== undefined
      ? process.env.PLATFORM_OTEL_LAYERS.split(",").filter(Boolean)
      : readRecord<{ tags: string[] }>(homePaths.otelLayersFile()).tags;
  return {
    ...(images as Record<Role, string>),
    ...(pythonVersions ? { pythonVersions } : {}),
    ...(nodeVersions ? { nodeVersions } : {}),
    ...(postgresVersions ? { postgresVersions } : {}),
    ...(Array.isArray(layers) ? { otelLayers: layers } : {}),
  };
}

/** The images of the roles (python, node, postgres, caddy, redis, debian...), without the catalogues and layers. */
export function roleImages(images: BaseImageSet): Record<string, string> {
  return Object.fromEntries(Object.entries(images).filter((e): e is [string, string] => typeof e[1] === "string"));
}

/** The catalogues of versions built on first need, by what they are versions of. */
export function versionCatalogues(images: BaseImageSet): [string, Readonly<Record<string, string>> | undefined][] {
  return [
    ["Python", images.pythonVersions],
    ["Node", images.nodeVersions],
    ["PostgreSQL", images.postgresVersions],
  ];
}
