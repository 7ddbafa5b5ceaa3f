import type { BaseImageSet } from "../plan/types.js";
import { homePaths } from "./layout.js";
import { readRecord } from "./records.js";

/** Public images by default; the set-up writes images.json when it built local ones. */
export const PUBLIC_IMAGES: BaseImageSet = { python: "python:3.11-slim", node: "node:22-slim", postgres: "postgres:17", caddy: "caddy:2" };

/**
 * The base images of this machine: the set-up's record over the public ones.
 * PLATFORM_<ROLE>_IMAGE (e.g. PLATFORM_POSTGRES_IMAGE) puts a team's own image in one role.
 */
export function baseImages(): BaseImageSet {
  const images = { ...PUBLIC_IMAGES, ...readRecord<BaseImageSet>(homePaths.imagesFile()) };
  for (const role of Object.keys(PUBLIC_IMAGES) as ("python" | "node" | "postgres" | "caddy")[]) {
    const override = process.env[`PLATFORM_${role.toUpperCase()}_IMAGE`];
    if (override) images[role] = override;
  }
  // PLATFORM_OTEL_LAYERS (comma-separated tags) stands in for the file, as the roles' variables do.
  // The layers are the OpenTelemetry layer images the set-up built (see recipes/opentelemetry.ts).
  const layers =
    process.env.PLATFORM_OTEL_LAYERS !== undefined
      ? process.env.PLATFORM_OTEL_LAYERS.split(",").filter(Boolean)
      : readRecord<{ tags: string[] }>(homePaths.otelLayersFile()).tags;
  return Array.isArray(layers) ? { ...images, otelLayers: layers } : images;
}
