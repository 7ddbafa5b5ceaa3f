import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { docker } from "../docker-client.js";
import { readCredentials } from "../engine/credentials.js";
import { readEdgeRecord } from "../engine/edge-record.js";
import { describeEdge, inspectEdge } from "../runtime/docker.js";
import { ExitCode } from "../errors.js";
import { baseImages, roleImages, versionCatalogues } from "../home/images.js";
import { platformHome } from "../home/layout.js";
import { toolchain } from "../home/toolchain.js";
import { printJson } from "./render.js";
import { formatTable } from "./table.js";

/** One line of `platform doctor`: what, whether it is there, its version or detail, how to fix it. */
export interface Check {
  name: string;
  ok: boolean;
  detail: string;
  fix?: string;
}

const run = promisify(execFile);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SETUP = "run npm run setup";

async function version(cmd: string, args: string[]): Promise<string | undefined> {
  try {
    return (await run(cmd, args, { timeout: 15_000 })).stdout.trim().split("\n")[0];
  } catch {
    return undefined;
  }
}

async function checkPulumi(): Promise<Check[]> {
  const bin = toolchain().pulumiBin;
  const v = bin ? await version(bin, ["version"]) : undefined;
  const langhost = bin ? join(dirname(bin), "pulumi-language-nodejs") : undefined;
  return [
    { name: "Pulumi CLI", ok: !!v, detail: v ? `${v} (${bin})` : "not found", fix: SETUP },
    { name: "Node.js language host", ok: !!langhost && existsSync(langhost), detail: langhost ?? "not found", fix: SETUP },
    {
      name: "platform provider plugin",
      ok: existsSync(join(ROOT, "dist", "provider", "main.js")),
      detail: join(ROOT, "bin", "pulumi-resource-platform"),
      fix: "run npm run build",
    },
  ];
}

async function checkDocker(): Promise<Check[]> {
  let engine: string | undefined;
  try {
    engine = (await docker().version()).Version;
  } catch {
    /* below */
  }
  const engineCheck: Check = {
    name: "Docker engine",
    ok: !!engine,
    detail: engine ? `Engine ${engine}` : `no engine answers on ${process.env.DOCKER_HOST ?? "/var/run/docker.sock"}`,
    fix: "start it: npm run setup (starts dockerd), or dockerd &, or set DOCKER_HOST",
  };
  const cli = toolchain().dockerCli ?? "docker";
  let buildkit = false;
  try {
    buildkit = (await run(cli, ["build", "--help"], { env: { ...process.env, DOCKER_BUILDKIT: "1" } })).stdout.includes("--secret");
  } catch {
    /* no */
  }
  const checks = [
    engineCheck,
    {
      name: "BuildKit client",
      ok: buildkit,
      detail: buildkit ? cli : `${cli} cannot run BuildKit builds with secrets`,
      fix: "apt-get install docker.io (Debian's client runs BuildKit), or install docker-buildx",
    },
  ];
  const present = async (image: string) => {
    if (!engine) return false;
    try {
      await docker().getImage(image).inspect();
      return true;
    } catch {
      return false;
    }
  };
  const images = baseImages();
  for (const [role, image] of Object.entries(roleImages(images))) {
    checks.push({
      name: `base image (${role})`,
      ok: await present(image),
      detail: image,
      fix: engine ? SETUP : "start the Docker engine first",
    });
  }
  // Not required: a deploy builds a version it needs (about a minute or two, once).
  for (const [language, versions] of versionCatalogues(images)) {
    if (!versions) continue;
    const built: string[] = [];
    const later: string[] = [];
    for (const [version, tag] of Object.entries(versions)) ((await present(tag)) ? built : later).push(version);
    checks.push({
      name: `${language} versions`,
      ok: true,
      detail: `built: ${built.join(", ") || "none"}${later.length ? `; built on first need: ${later.join(", ")}` : ""}`,
      fix: SETUP,
    });
  }
  // Not required: without its layer, a first build installs the OpenTelemetry SDK itself (slower).
  const layers = images.otelLayers ?? [];
  const missing: string[] = [];
  for (const layer of layers) if (!(await present(layer))) missing.push(layer);
  checks.push({
    name: "OpenTelemetry layers",
    ok: true,
    detail:
      layers.length === 0
        ? "none built: first builds install the SDK themselves (npm run setup builds them)"
        : missing.length
          ? `${layers.length - missing.length} of ${layers.length} present (missing: ${missing.join(", ")}; npm run setup rebuilds them)`
          : layers.join(", "),
    fix: SETUP,
  });
  return checks;
}

/** The edge's mode: the one the engine runs, and the one chosen for it (they differ until the next deploy). */
async function checkEdge(): Promise<Check> {
  const chosen = readEdgeRecord();
  const running = await inspectEdge().catch(() => undefined);
  const choice = chosen ? `chosen: ${chosen.mode}${chosen.appsDomain ? ` (${chosen.appsDomain})` : ""}` : "chosen: local (the default)";
  const detail = running ? `${describeEdge(running)}; ${choice}` : `not running yet (a deploy of a public service starts it); ${choice}`;
  return {
    name: "HTTPS edge",
    ok: true,
    detail,
    fix: "choose with PLATFORM_EDGE=local|public on a deploy (docs/guide/deploying-to-a-server.md)",
  };
}

function checkState(): Check {
  const c = readCredentials();
  if (!c) return { name: "state backend", ok: false, detail: "not logged in", fix: "run platform login" };
  const dir = c.backendUrl.startsWith("file://") ? c.backendUrl.slice(7) : undefined;
  return { name: "state backend", ok: !dir || existsSync(dir), detail: c.backendUrl, fix: "run platform login again" };
}

async function runChecks(): Promise<Check[]> {
  const major = Number(process.versions.node.split(".")[0]);
  const node: Check = { name: "Node.js", ok: major >= 22, detail: `v${process.versions.node} (${process.execPath})`, fix: SETUP };
  return [node, ...(await checkPulumi()), ...(await checkDocker()), await checkEdge(), checkState()];
}

/** `platform doctor`: what a deploy needs, each with how to fix it (exit 4 when something is missing). */
export async function runDoctor(o: { json?: boolean }): Promise<void> {
  const checks = await runChecks();
  const ok = checks.every((c) => c.ok);
  if (o.json) printJson({ ok, platformHome: platformHome(), checks });
  else {
    process.stdout.write(
      formatTable(
        ["CHECK", "", "DETAIL"],
        checks.map((c) => [c.name, c.ok ? "✓" : "✖", c.detail]),
      ),
    );
    for (const c of checks.filter((x) => !x.ok)) process.stdout.write(`✖ ${c.name}: ${c.fix}\n`);
    process.stdout.write(ok ? "✓ ready to deploy\n" : "✖ not ready to deploy\n");
  }
  if (!ok) process.exitCode = ExitCode.environment;
}
