import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { platformHome } from "../../src/home/layout.js";
import { httpsRequest, ok, parseUrls, runCli } from "./helpers/cli.js";
import { forgetProject, freshBackend, requireToolchain, ROOT, unique } from "./helpers/env.js";

/**
 * Next.js apps as they come, on machines that cannot reach Google Fonts (test/fixtures/apps/
 * next-offline), deployed with nothing but their platform.yml:
 *   - `fonts` (Next.js 16, Turbopack, npm): next/font/google with Geist (variable) and Roboto
 *     Mono at two weights. The build is served both families from npm packages, and the page
 *     then serves the font files itself: preload links, @font-face CSS, WOFF2 bytes.
 *   - `devconfig` (Next.js 15, webpack, pnpm): next.config.mjs imports a dev dependency, which
 *     next start loads; Inter from next/font/google besides. It starts and answers.
 * No test here has the internet, so "with the internet nothing changes" is the unit tests' (the
 * command runs untouched unless the stand-in is needed).
 */
const project = unique("nxoff");
const backend = freshBackend();
const dir = join(mkdtempSync(join(tmpdir(), "platform-next-offline-")), "repo");
const cli = (args: string[]) => runCli(args, { cwd: dir, env: backend });
let urls: Record<string, string> = {};
let ca = "";

const images = () =>
  execFileSync("docker", ["images", "--format", "{{.Repository}}:{{.Tag}}", `platform/${project}_*`])
    .toString()
    .split("\n")
    .filter(Boolean);

/** The last build log of each service (the platform home's logs/<project>/<env>/build-<service>-<ms>.log). */
function buildLogs(): Record<string, string> {
  const logs: Record<string, string> = {};
  const root = join(platformHome(), "logs", project);
  for (const env of readdirSync(root)) {
    for (const name of readdirSync(join(root, env)).sort()) {
      const m = /^build-(.+)-\d+\.log$/.exec(name);
      if (m) logs[m[1] as string] = readFileSync(join(root, env, name), "utf8");
    }
  }
  return logs;
}

describe("Next.js without the internet: next/font/google from npm, and a next.config that imports a dev dependency", () => {
  beforeAll(() => {
    requireToolchain();
    cpSync(join(ROOT, "test", "fixtures", "apps", "next-offline"), dir, { recursive: true });
    // A variable of this run's own: next build runs (its variables are a build input), so its
    // log has the lines asserted below even when BuildKit holds an earlier run's layers.
    const yml = join(dir, "platform.yml");
    writeFileSync(yml, readFileSync(yml, "utf8").replace(/^( {4}source: \.\/\w+\n)/gm, `$1    env:\n      FIXTURE_RUN: ${project}\n`));
  });

  afterAll(async () => {
    await cli(["destroy", "--yes", "--project", project]);
    await cli(["unlink"]);
    const left = images();
    if (left.length) execFileSync("docker", ["rmi", "-f", ...left], { stdio: "ignore" });
    rmSync(join(dir, ".."), { recursive: true, force: true });
    forgetProject(project);
  });

  it("deploys both apps; each build says which families it served from which packages", async () => {
    const r = ok(await cli(["deploy", "--yes", "--project", project]));
    console.log(`next-offline first deploy: ${r.seconds.toFixed(0)} s`);
    urls = parseUrls(r.stdout);
    ca = ok(await cli(["ca"])).stdout;
    const logs = buildLogs();
    expect(logs.fonts).toMatch(/▲ Next\.js 16\.[\d.]+ \(Turbopack\)\n/);
    expect(logs.fonts).toMatch(
      /platform: next\/font\/google: Google Fonts cannot be reached from this build \([^)\n]+\): serving Geist, Roboto Mono from npm \(@fontsource-variable\/geist@5\.[\d.]+, @fontsource\/roboto-mono@5\.[\d.]+\)\n/,
    );
    // Next.js 15 builds with webpack (its banner names no bundler).
    expect(logs.devconfig).toMatch(/▲ Next\.js 15\.5\.4\n/);
    expect(logs.devconfig).toMatch(/serving Inter from npm \(@fontsource-variable\/inter@5\.[\d.]+\)\n/);
    // Nothing a package lacked.
    expect(`${logs.fonts}${logs.devconfig}`).not.toMatch(/platform: next\/font\/google: no npm package carries/);
  }, 1_500_000);

  it("the page serves the fonts itself: preload links, @font-face rules for both families, WOFF2 files", async () => {
    const base = urls.fonts as string;
    const page = await httpsRequest(`${base}/`, ca);
    expect(page.status).toBe(200);
    expect(page.body).toContain("Fonts served by the app itself");
    // Preloaded: the latin files of Geist and of Roboto Mono 400 and 700.
    const preloads = [...page.body.matchAll(/<link rel="preload" href="(\/_next\/static\/media\/[^"]+\.woff2)" as="font"/g)].map(
      (m) => m[1],
    );
    expect(preloads.length, page.body).toBe(3);
    const sheets = [...page.body.matchAll(/<link rel="stylesheet" href="([^"]+\.css)"/g)].map((m) => new URL(m[1] as string, base).href);
    expect(sheets.length).toBeGreaterThan(0);
    let css = "";
    const files = new Set<string>();
    for (const sheet of sheets) {
      const r = await httpsRequest(sheet, ca);
      expect(r.status).toBe(200);
      css += r.body;
      for (const m of r.body.matchAll(/url\(([^)]+\.woff2)\)/g)) files.add(new URL(m[1] as string, sheet).pathname);
    }
    const faces = css.match(/@font-face\{[^}]*\}/g) ?? [];
    const weights = (family: RegExp) =>
      [...new Set(faces.filter((f) => family.test(f)).map((f) => /font-weight:([^;}]+)/.exec(f)?.[1]))].sort();
    expect(weights(/font-family:["']?Geist["']?[;}]/)).toEqual(["100 900"]);
    expect(weights(/font-family:["']?Roboto Mono["']?[;}]/)).toEqual(["400", "700"]);
    expect(faces.some((f) => /Roboto Mono/.test(f) && /font-display:optional/.test(f))).toBe(true);
    // Every preloaded file is one the CSS uses, and each file is WOFF2 served by the app.
    for (const p of preloads) expect([...files]).toContain(p);
    for (const file of files) {
      const r = await httpsRequest(`${base}${file}`, ca);
      expect([file, r.status]).toEqual([file, 200]);
      expect(r.body.slice(0, 4)).toBe("wOF2");
    }
  }, 120_000);

  it("the app whose next.config imports a dev dependency starts and answers; the build said why it kept them", async () => {
    const page = await httpsRequest(`${urls.devconfig}/`, ca);
    expect(page.status).toBe(200);
    expect(page.body).toContain("started with a next.config that imports a dev dependency");
    expect(buildLogs().devconfig).toContain(
      "platform: next start: next.config.mjs does not load without dev dependencies (Cannot find package '@next/bundle-analyzer' imported from /app/next.config.mjs): they stay in the image (move what it imports to dependencies for a smaller image)",
    );
  }, 120_000);
});
