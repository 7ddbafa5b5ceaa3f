import { execFileSync, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { platformHome } from "../../../src/home/layout.js";
import { toolchain } from "../../../src/home/toolchain.js";
import { STATE_ROOT_VAR } from "./state-root.js";

/** Shared facts for integration tests: the real toolchain the set-up provided, and fresh state. */
export const ROOT = resolve(import.meta.dirname, "..", "..", "..");
export const CLI = join(ROOT, "dist", "bin.js");

/** Fails loudly (never skips) when the set-up did not provide what the tests need. */
/**
 * A copy of examples/NAME (or a folder in it: "catalog/api") in `dir`, without what builds and
 * installs leave in the repository (node_modules, .next, __pycache__, .venv), nor what `without`
 * matches.
 */
export function copyExample(name: string, dir: string, without?: RegExp): void {
  const skip = (s: string) => /node_modules|\.next|__pycache__|\.venv/.test(s) || (without?.test(s) ?? false);
  cpSync(join(ROOT, "examples", name), dir, { recursive: true, filter: (s) => !skip(s) });
}

export function requireToolchain(): { pulumi: string; nodeBin: string } {
  const tc = toolchain();
  if (!tc.pulumiBin || !tc.nodeBin) throw new Error("no toolchain.json in the platform home: run npm run setup first");
  execFileSync("docker", ["version"], { stdio: "ignore" });
  return { pulumi: tc.pulumiBin, nodeBin: tc.nodeBin };
}

/** A file backend of its own and a passphrase: each test file runs on fresh state. */
export function freshBackend(): Record<string, string> {
  const dir = mkdtempSync(join(process.env[STATE_ROOT_VAR] ?? tmpdir(), "platform-state-"));
  return { PLATFORM_BACKEND_URL: `file://${dir}`, PLATFORM_PASSPHRASE: "test-passphrase" };
}

/** The environment for the pulumi CLI itself: the toolchain first on PATH. */
export function pulumiEnv(backend: Record<string, string>): NodeJS.ProcessEnv {
  const { pulumi, nodeBin } = requireToolchain();
  return {
    ...process.env,
    PATH: [dirname(pulumi), nodeBin, process.env.PATH].join(delimiter),
    PULUMI_BACKEND_URL: backend.PLATFORM_BACKEND_URL,
    PULUMI_CONFIG_PASSPHRASE: backend.PLATFORM_PASSPHRASE,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
  };
}

/**
 * The plain pulumi CLI on a project's stack in its workspace, as an infra engineer runs it
 * (`pulumi preview --expect-no-changes ...`): its output; a non-zero exit throws, with its output.
 */
export function pulumiOnStack(project: string, backend: Record<string, string>, args: string[], env = "preview"): string {
  const workspace = join(platformHome(), "projects", project);
  return execFileSync(requireToolchain().pulumi, [...args, "--stack", env, "--non-interactive", "--color", "never", "--cwd", workspace], {
    env: pulumiEnv(backend),
    encoding: "utf8",
    timeout: 300_000,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Removes what a test project left in the platform home (workspace, history, logs). */
export function forgetProject(project: string): void {
  for (const d of [join(platformHome(), "projects", project), join(platformHome(), "logs", project)])
    rmSync(d, { recursive: true, force: true });
}

export function unique(prefix: string): string {
  return `${prefix}${Date.now().toString(36).slice(-5)}`;
}

/**
 * A TCP port that nothing listens on now, on any address (for a test's own edge, a server of its
 * own), chosen below the kernel's ephemeral range: a port of that range (what listen(0) gives)
 * can become the local port of any outgoing connection before the test binds it, and then the
 * bind fails ("something else uses that port": CI saw it under load).
 */
export async function freePort(): Promise<number> {
  const ephemeralLow = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]) || 32768;
  const low = 20_000;
  const high = Math.max(low + 1000, ephemeralLow) - 1;
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${low} and ${high} after 100 tries`);
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer()
      .once("error", () => resolve(false))
      .listen({ port, host: "0.0.0.0", exclusive: true }, () => s.close(() => resolve(true)));
  });
}

/** The names of a stack's running containers of one service (one per line), as `docker ps` lists them. */
export function serviceContainers(project: string, service: string): string {
  return execFileSync("docker", [
    "ps",
    "--filter",
    `label=platform.project=${project}`,
    "--filter",
    `label=platform.service=${service}`,
    "--format",
    "{{.Names}}",
  ])
    .toString()
    .trim();
}

/** Removes the images a test's deploys built for a project (platform/<project>_*). */
export function removeProjectImages(project: string): void {
  const images = execFileSync("docker", ["images", "-q", `platform/${project}_*`], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
  if (images.length) spawnSync("docker", ["rmi", "-f", ...images]);
}

/**
 * Removes a test's own edge (PLATFORM_EDGE_NAME): its container (and a half-made successor), its
 * name resolver with the resolver's network, and its data volume. Gone already is fine.
 */
export function removeEdge(name: string): void {
  spawnSync("docker", ["rm", "-f", "-v", name, `${name}-next`, `${name}-dns`], { stdio: "ignore" });
  spawnSync("docker", ["volume", "rm", "-f", `${name}-data`], { stdio: "ignore" });
  spawnSync("docker", ["network", "rm", `${name}-dns`], { stdio: "ignore" });
}

/** What `platform run` and `platform exec` recorded for a project's preview: [kind, service, exit code] per run. */
export function recordedRuns(project: string): [string, string, number][] {
  return readFileSync(join(platformHome(), "logs", project, "preview", "runs.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { kind: string; service: string; exitCode: number })
    .map((x) => [x.kind, x.service, x.exitCode]);
}
