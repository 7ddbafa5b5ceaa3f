import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliResult, httpsRequest, ok, parseUrls, runCli } from "./helpers/cli.js";
import {
  copyExample,
  forgetProject,
  freePort,
  freshBackend,
  removeEdge,
  requireToolchain,
  ROOT,
  serviceContainers,
  unique,
} from "./helpers/env.js";
import { describeLoad, eventCount, eventPost, eventsPosted, quantile, startLoad } from "./helpers/load.js";

/**
 * Issue 17: zero failed requests under load across redeploys of every kind. Clients of both
 * protocols browsers speak send GETs of the web page and of the API's health route and POSTs of
 * events through the HTTPS edge: 8 over HTTP/1.1 (half on a fresh TLS connection per request,
 * half on pooled keep-alive ones) and 2 over HTTP/2 (like browser tabs: one session per origin,
 * 4 streams in flight at once on them), while 20 redeploys run: code and env changes, no
 * change, a failing migration, a version that crashes on start, web-only changes. Not one
 * answer may be non-2xx, not one connection or stream may fail (an HTTP/2 stream reset in a web
 * container swap is curl's "HTTP/2 stream 1 was not closed cleanly"), no kept connection may be
 * closed under a request (the load counts a resend as a failure: the edge is never replaced
 * here, only apps are swapped behind it), and every POST answered 201 must be exactly one row
 * (a retried POST must not be stored twice).
 *
 * The test runs its own edge (PLATFORM_EDGE_NAME, a free port): the engine's shared edge is
 * left alone, so other projects' deploys neither disturb this test nor are disturbed by it.
 */
const project = unique("zdt");
const edge = `platform-edge-${project}`;
const backend = freshBackend();
const dir = join(mkdtempSync(join(tmpdir(), "platform-zdt-")), "fullstack");
let env: Record<string, string> = {};
const cli = (...args: string[]) => runCli(args, { cwd: dir, env });
let urls: Record<string, string> = {};
let ca = "";

// A web change rebuilds Next.js (an env change too: build-time variables), minutes on a busy
// machine: one of them; the rest are the API's kinds.
const REDEPLOYS = [
  "api-code",
  "api-env",
  "no-change",
  "api-code",
  "failing-migration",
  "api-env",
  "crashing-version",
  "api-code",
  "web-code",
  "api-env",
  "api-code",
  "no-change",
  "failing-migration",
  "api-code",
  "api-env",
  "crashing-version",
  "api-code",
  "api-env",
  "api-code",
  "api-code",
] as const;
type Redeploy = (typeof REDEPLOYS)[number];

const file = (...p: string[]) => join(dir, ...p);
const containerOf = (service: string) => serviceContainers(project, service);

/** platform.yml with a RELEASE variable for the API: a change of it is an env-only redeploy. */
const baseYml = () => readFileSync(join(ROOT, "examples", "fullstack", "platform.yml"), "utf8");
const releases = { api: 0 };
function writeYml(): void {
  const yml = baseYml().replace(
    "      CORS_ORIGINS: ${web.external_url}\n",
    `      CORS_ORIGINS: \${web.external_url}\n      RELEASE: "${releases.api}"\n`,
  );
  if (!yml.includes(`RELEASE: "${releases.api}"\n    depends_on`))
    throw new Error("examples/fullstack/platform.yml changed shape: update writeYml");
  writeFileSync(file("platform.yml"), yml);
}

/** Makes the change, deploys, undoes what must not stay; returns the deploy and the exit code it must have. */
async function redeploy(kind: Redeploy, n: number): Promise<{ r: CliResult; want: number }> {
  const main = file("api", "app", "main.py");
  const original = readFileSync(main, "utf8");
  const broken = file("api", "migrations", "versions", "9999_broken.py");
  switch (kind) {
    case "api-code":
      writeFileSync(file("api", "app", "version.txt"), `v${n}\n`);
      break;
    case "api-env":
      releases.api = n;
      writeYml();
      break;
    case "web-code":
      writeFileSync(file("web", "app", "release.txt"), `v${n}\n`);
      break;
    case "no-change":
      break;
    case "failing-migration":
      writeFileSync(
        broken,
        [
          'revision = "9999broken"',
          'down_revision = "0001"',
          "branch_labels = None",
          "depends_on = None",
          "",
          "from alembic import op",
          "",
          "def upgrade():",
          '    op.execute("SELECT no_such_column FROM no_such_table")',
          "",
          "def downgrade():",
          "    pass",
          "",
        ].join("\n"),
      );
      break;
    case "crashing-version":
      writeFileSync(main, `${original}\nraise RuntimeError("boom: this version cannot start")\n`);
      break;
  }
  const r = await cli("deploy", "--yes", "--project", project);
  rmSync(broken, { force: true });
  writeFileSync(main, original);
  return { r, want: kind === "failing-migration" || kind === "crashing-version" ? 1 : 0 };
}

const ms = (v: number) => `${v.toFixed(1)} ms`;

describe("zero failed requests under load across 20 redeploys", () => {
  beforeAll(async () => {
    requireToolchain();
    env = { ...backend, PLATFORM_EDGE_NAME: edge, PLATFORM_HTTPS_PORT: String(await freePort()) };
    copyExample("fullstack", dir);
    // A route that answers after 3 s: a request in flight when the web container is told to stop.
    mkdirSync(file("web", "app", "slow"), { recursive: true });
    writeFileSync(
      file("web", "app", "slow", "route.js"),
      [
        'export const dynamic = "force-dynamic";',
        "export async function GET() {",
        "  await new Promise((r) => setTimeout(r, 3000));",
        '  return new Response("slow ok");',
        "}",
        "",
      ].join("\n"),
    );
    writeYml();
  });

  afterAll(async () => {
    await cli("destroy", "--yes", "--delete-data", "--project", project);
    removeEdge(edge);
    rmSync(dir, { recursive: true, force: true });
    forgetProject(project);
  });

  it("deploys the fullstack example behind its own edge", async () => {
    urls = parseUrls(ok(await cli("deploy", "--yes", "--project", project)).stdout);
    expect(urls.api).toMatch(/^https:\/\/.+\.localhost:\d+$/);
    ca = ok(await cli("ca")).stdout;
    expect(ca).toContain("BEGIN CERTIFICATE");
  }, 900_000);

  it("HTTP/1.1 and HTTP/2 clients see no failure while 20 redeploys of every kind run", async () => {
    const before = await eventCount(urls.api as string, ca);
    const load = startLoad({
      clients: 8,
      h2: { clients: 2, streams: 4 },
      ca,
      maxRequests: 200_000,
      maxMs: 1_700_000,
      mix: [
        { name: "GET web /", url: `${urls.web}/` },
        { name: "GET api /health", url: `${urls.api}/health` },
        eventPost(urls.api as string, "load"),
      ],
    });
    await new Promise((r) => setTimeout(r, 15_000));
    load.setPhase("redeploys");
    const outcomes: string[] = [];
    for (const [i, kind] of REDEPLOYS.entries()) {
      const { r, want } = await redeploy(kind, i + 1);
      outcomes.push(`${kind}: exit ${r.code} in ${r.seconds.toFixed(1)}s`);
      console.log(`redeploy ${i + 1}/${REDEPLOYS.length} ${outcomes.at(-1)}; ${load.sent()} requests so far`);
      if (r.code !== want) {
        console.log(describeLoad(await load.stop()).join("\n"));
        throw new Error(`redeploy ${i + 1} (${kind}) exited ${r.code}, expected ${want}\n${r.stdout}\n${r.stderr}`);
      }
    }
    // Quiet again: "at rest" is both quiet phases, before (right after the first deploy) and after.
    load.setPhase("rest");
    await new Promise((r) => setTimeout(r, 15_000));
    const result = await load.stop();
    const { sent, failures, latencies, byProtocol } = result;
    expect(sent, "the request bound was reached before the last redeploy: raise maxRequests").toBeLessThan(200_000);
    expect(result.stoppedBy, "the load stopped at one of its bounds before the test stopped it").toBe("stop");
    const rest = latencies.get("rest") ?? [];
    const during = latencies.get("redeploys") ?? [];
    console.log(
      [
        `zero-downtime: ${sent} requests, ${failures.length} failed`,
        `  at rest:          ${rest.length} requests, p50 ${ms(quantile(rest, 0.5))}, p99 ${ms(quantile(rest, 0.99))}`,
        `  during redeploys: ${during.length} requests, p50 ${ms(quantile(during, 0.5))}, p99 ${ms(quantile(during, 0.99))}`,
        ...describeLoad(result),
        ...outcomes.map((o) => `  ${o}`),
      ].join("\n"),
    );
    expect(failures.slice(0, 20)).toEqual([]);
    expect({ "http/1.1": byProtocol["http/1.1"].failures.length, h2: byProtocol.h2.failures.length }).toEqual({ "http/1.1": 0, h2: 0 });
    expect(during.length).toBeGreaterThan(1000);
    // Both protocols were really exercised, across the redeploys too, and HTTP/2 multiplexed
    // (every h2 answer came on a session that negotiated "h2": h2.ts fails the others).
    for (const p of ["http/1.1", "h2"] as const) {
      expect(byProtocol[p].sent / sent, `${p}'s share of the requests`).toBeGreaterThanOrEqual(0.2);
      expect(byProtocol[p].latencies.get("redeploys")?.length ?? 0, `${p} requests during the redeploys`).toBeGreaterThan(500);
    }
    expect(result.h2.maxStreams, "the most HTTP/2 streams in flight at once on one session").toBeGreaterThan(1);
    // Every POST answered 201 is one row, no more: a POST that was retried was stored once.
    expect(await eventCount(urls.api as string, ca)).toBe(before + eventsPosted(result));
  }, 1_800_000);

  it("Next.js finishes a request in flight when its container is stopped (SIGTERM)", async () => {
    const web = containerOf("web");
    const pending = httpsRequest(`${urls.web}/slow`, ca, { timeoutMs: 20_000 });
    await new Promise((r) => setTimeout(r, 1000));
    const t0 = Date.now();
    execFileSync("docker", ["stop", "-t", "20", web]);
    const stopped = (Date.now() - t0) / 1000;
    const r = await pending;
    expect(r).toMatchObject({ status: 200, body: "slow ok" });
    // It waited for the request (about 2 s left), then exited by itself: 0, not SIGKILL's 137.
    expect(stopped).toBeGreaterThan(1);
    expect(stopped).toBeLessThan(15);
    expect(execFileSync("docker", ["inspect", "-f", "{{.State.ExitCode}}", web]).toString().trim()).toBe("0");
  }, 60_000);
});
