import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { otelLayersFor } from "../../plan/recipes/opentelemetry.js";
import { baseImages, buildCaFile, otelLayersFile } from "../../settings.js";
import { docker, unlessGone } from "./provider/docker-client.js";
import { runQuietBuild } from "./provider/telemetry.js";

/**
 * Set-up: the OpenTelemetry layer images of this machine's base images (recipes/opentelemetry.ts,
 * `otelLayer`), built when missing, and listed in $PLATFORM_HOME/otel-layers.json, which the
 * plan reads. A recipe whose stage matches one starts from it instead of installing the SDK.
 */
export async function ensureOtelLayers(): Promise<{ tags: string[]; built: string[] }> {
  const built: string[] = [];
  const layers = otelLayersFor(baseImages());
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
  const tags = layers.map((l) => l.tag);
  writeFileAtomic.sync(otelLayersFile(), `${JSON.stringify({ tags }, null, 2)}\n`);
  return { tags, built };
}
