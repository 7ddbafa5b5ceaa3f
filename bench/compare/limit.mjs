// The physical limit of a cold deploy on this machine: the slowest single image build, alone,
// from a cold cache, plus the start of that service's container until it answers HTTP. No
// tool can deploy the app faster. Builds use the platform's own build definitions (its
// generated Dockerfile for the Next.js service, the API's Dockerfile, the same build args).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildImage, startUntilHealthy } from "./docker.mjs";

async function fullstackPlan(root, dir, images) {
  const { loadConfig } = await import(join(root, "dist", "config", "index.js"));
  const { buildPlan } = await import(join(root, "dist", "plan", "build-plan.js"));
  const { scanSources } = await import(join(root, "dist", "plan", "scan-source.js"));
  const loaded = await loadConfig(join(dir, "platform.yml"));
  if (!loaded.ok) throw new Error(`examples/fullstack/platform.yml is invalid: ${JSON.stringify(loaded.errors)}`);
  const ctx = { project: "bench-limit", env: "preview", projectDir: dir, appsDomain: "localhost", httpsPort: 443, images };
  return buildPlan(loaded.config, ctx, await scanSources(loaded.config, dir));
}

/** A probe run inside the container: any HTTP answer on its port counts (the app started). */
function answersHttp(type, port) {
  const url = `http://127.0.0.1:${port}/`;
  return type === "nextjs"
    ? ["node", "-e", `fetch(${JSON.stringify(url)}).then(() => process.exit(0), () => process.exit(1))`]
    : [
        "python3",
        "-c",
        `import urllib.request as u, urllib.error as e\ntry: u.urlopen(${JSON.stringify(url)}, timeout=2)\nexcept e.HTTPError: pass`,
      ];
}

/** Builds every image of the app alone, one after the other; the slowest plus its start. */
export async function measureLimit({ root, dir, work, images, caFile, tagPrefix }) {
  const plan = await fullstackPlan(root, dir, images);
  const builds = [];
  for (const s of plan.services.filter((x) => x.build)) {
    let dockerfile = s.build.dockerfilePath;
    if (s.build.kind === "recipe") {
      dockerfile = join(work, `limit-${s.name}.Dockerfile`);
      writeFileSync(dockerfile, s.build.recipe.dockerfile);
      writeFileSync(`${dockerfile}.dockerignore`, s.build.recipe.dockerignore);
    }
    const tag = `${tagPrefix}-${s.name}:limit`;
    const r = await buildImage({ tag, dockerfile, context: s.build.context, buildArgs: s.build.buildArgs, caFile });
    builds.push({ service: s, tag, ms: r.ms });
  }
  const slowest = builds.reduce((a, b) => (b.ms > a.ms ? b : a));
  const port = slowest.service.port;
  const startMs = await startUntilHealthy({
    image: slowest.tag,
    name: `${tagPrefix}-limit-${slowest.service.name}`,
    env: [`PORT=${port}`],
    probe: answersHttp(slowest.service.type, port),
  });
  return {
    builds: Object.fromEntries(builds.map((b) => [b.service.name, b.ms])),
    slowest: slowest.service.name,
    startMs,
    ms: slowest.ms + startMs,
    tags: builds.map((b) => b.tag),
  };
}
