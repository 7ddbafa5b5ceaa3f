import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { otelLayersFor } from "../../plan/recipes/opentelemetry.js";
import { baseImages } from "../../home/images.js";
import { buildCaFile } from "../../home/keys.js";
import { homePaths } from "../../home/layout.js";
import { docker, unlessGone } from "../../docker-client.js";
import { runQuietBuild } from "./receiver.js";

/**
 * Set-up: the OpenTelemetry layer images of this machine's base images (recipes/opentelemetry.ts,
 * `otelLayer`), built when missing, and listed in $PLATFORM_HOME/otel-layers.json, which the
 * plan reads. A recipe whose stage matches one starts from it instead of installing the SDK.
 */
export async function ensureOtelLayers(): Promise<{ tags: string[]; built: string[] }> {
  const r = await buildOtelLayers(baseImages());
  writeFileAtomic.sync(homePaths.otelLayersFile(), `${JSON.stringify({ tags: r.tags }, null, 2)}\n`);
  return r;
}

/** The layers of these base images, each built when the engine lacks it. */
export async function buildOtelLayers(images: { python: string; node: string }): Promise<{ tags: string[]; built: string[] }> {
  const built: string[] = [];
  const layers = otelLayersFor(images);
  for (const layer of layers) {
    if (await unlessGone(() => docker().getImage(layer.tag).inspect())) continue;
    const dir = mkdtempSync(join(tmpdir(), "platform-otel-layer-"));
    try {
      writeFileSync(join(dir, "Dockerfile"), layer.dockerfile);
      const ca = buildCaFile();
      await runQuietBuild(["-t", layer.tag, ...(ca ? ["--secret", `id=ca,src=${ca}`] : []), dir], `the OpenTelemetry layer ${layer.tag}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    built.push(layer.tag);
  }
  return { tags: layers.map((l) => l.tag), built };
}
