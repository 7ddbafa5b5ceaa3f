import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpsRequest, ok, parseUrls, runCli, startCli } from "./helpers/cli.js";
import { forgetProject, freePort, freshBackend, removeEdge, requireToolchain, ROOT, unique } from "./helpers/env.js";

/**
 * A project belongs to one directory; names from the command line are checked; stacks whose
 * names used to collide deploy side by side, isolated; one operation at a time per stack;
 * Ctrl-C stops gracefully; two first deploys do not remove each other's edge.
 */
const backend = freshBackend();
const base = mkdtempSync(join(tmpdir(), "platform-identity-"));
const name = unique("idn");
const deployed: { dir: string; project: string; env: string; cliEnv?: Record<string, string> }[] = [];
/** Edges of their own that tests made (removed after their stacks). */
const edges: string[] = [];

/** A copy of the whoami app whose platform.yml has this name and says WHO. */
function app(dir: string, projectName: string, who: string): string {
  const to = join(base, dir);
  cpSync(join(ROOT, "test", "fixtures", "apps", "whoami"), to, { recursive: true });
  const yml = readFileSync(join(to, "platform.yml"), "utf8")
    .replace("name: whoami", `name: ${projectName}`)
    .replace("WHO: nobody", `WHO: ${who}`);
  writeFileSync(join(to, "platform.yml"), yml);
  return to;
}

const cli = (dir: string, ...args: string[]) => runCli(args, { cwd: dir, env: backend });
const docker = (...args: string[]) => execFileSync("docker", args).toString().trim();
const containers = (project: string, env = "preview") =>
  docker("ps", "-a", "--filter", `label=platform.project=${project}`, "--filter", `label=platform.env=${env}`, "--format", "{{.Names}}")
    .split("\n")
    .filter(Boolean);

async function apiUrl(dir: string, env = "preview"): Promise<string> {
  const s = JSON.parse(ok(await cli(dir, "status", "--json", "--env", env)).stdout);
  return s.services.find((x: { service: string }) => x.service === "api").url;
}

async function whoAt(url: string, ca: string): Promise<string> {
  const r = await httpsRequest(url, ca);
  expect(r.status).toBe(200);
  return JSON.parse(r.body).who;
}

describe("project identity, names, isolation and one operation at a time", () => {
  let ca = "";
  const dirA = () => join(base, "a");

  beforeAll(async () => {
    requireToolchain();
    app("a", name, "first");
    const r = ok(await cli(dirA(), "deploy", "--yes"));
    deployed.push({ dir: dirA(), project: name, env: "preview" });
    expect(r.stdout).toMatch(/^Deployment complete/m);
    ca = ok(await cli(dirA(), "ca")).stdout;
  }, 900_000);

  afterAll(async () => {
    for (const d of deployed)
      await runCli(["destroy", "--yes", "--delete-data", "--project", d.project, "--env", d.env], { cwd: d.dir, env: d.cliEnv ?? backend });
    for (const e of edges) removeEdge(e);
    for (const p of new Set(deployed.map((d) => d.project))) forgetProject(p);
    rmSync(base, { recursive: true, force: true });
  }, 600_000);

  it("refuses to deploy a second directory into a project by accident, and suggests a free name", async () => {
    const b = app("b", name, "second");
    const r = await cli(b, "deploy", "--yes");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`project "${name}" already exists (directory ${dirA()})`);
    expect(r.stderr).toContain(`--project ${name}-2`);
    expect(r.stderr).toContain(`platform link ${name}`);
    expect(containers(name).filter((c) => /_api-/.test(c))).toHaveLength(1);
  }, 120_000);

  it("joins deliberately with platform link, and forgets with platform unlink", async () => {
    const b = join(base, "b");
    const linked = ok(await cli(b, "link", name));
    expect(linked.stdout).toContain(`Linked ${b} to project ${name}`);
    expect(linked.stdout).toContain(`also deploying to ${name}: ${dirA()}`);
    ok(await cli(b, "deploy", "--yes"));
    expect(await whoAt(await apiUrl(b), ca)).toBe("second");
    ok(await cli(dirA(), "deploy", "--yes"));
    expect(ok(await cli(b, "unlink")).stdout).toContain(`Unlinked ${b} from project ${name}`);
    expect((await cli(b, "deploy", "--yes")).code).toBe(1);
  }, 600_000);

  it("checks names given on the command line like names in platform.yml", async () => {
    const cases: [string[], RegExp][] = [
      [["deploy", "--yes", "-p", "../../x"], /--project: project name "..\/..\/x" must start with a letter/],
      [["deploy", "--yes", "--env", "Prod"], /--env: environment name "Prod" has uppercase letters/],
      [["deploy", "--yes", "--https-port", "70000"], /--https-port: "70000" is not a port number/],
      [["deploy", "--yes", "--apps-domain", "a..b"], /--apps-domain: apps domain "a..b" has a part "" that is empty/],
      [["status", "-p", "a/b"], /--project: project name "a\/b" may only contain/],
    ];
    for (const [args, message] of cases) {
      const r = await cli(dirA(), ...args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toContain("hint: ");
    }
  });

  it("deploys stacks whose names used to collide side by side, each on its own network and volume", async () => {
    const pairs = [
      { project: `${name}c`, env: "x-y" },
      { project: `${name}c-x`, env: "y" },
    ];
    for (const p of pairs) {
      const dir = app(`${p.project}_${p.env}`, p.project, `${p.project}/${p.env}`);
      ok(await cli(dir, "deploy", "--yes", "--project", p.project, "--env", p.env));
      deployed.push({ dir, ...p });
    }
    const [one, two] = pairs as [(typeof pairs)[0], (typeof pairs)[0]];
    expect(docker("network", "inspect", `${one.project}_${one.env}`, "--format", '{{index .Labels "platform.project"}}')).toBe(one.project);
    expect(docker("network", "inspect", `${two.project}_${two.env}`, "--format", '{{index .Labels "platform.project"}}')).toBe(two.project);
    expect(docker("volume", "inspect", `${one.project}_${one.env}_db_data`, "--format", '{{index .Labels "platform.env"}}')).toBe(one.env);
    expect(docker("volume", "inspect", `${two.project}_${two.env}_db_data`, "--format", '{{index .Labels "platform.env"}}')).toBe(two.env);
    for (const p of pairs) {
      const dir = deployed.find((d) => d.project === p.project)!.dir;
      expect(await whoAt(await apiUrl(dir, p.env), ca)).toBe(`${p.project}/${p.env}`);
    }
  }, 900_000);

  it("lets one operation at a time work on a stack and says who holds it", async () => {
    writeFileSync(join(dirA(), "api", "changed.txt"), `${Date.now()}`);
    const first = startCli(["deploy", "--yes"], { cwd: dirA(), env: backend });
    await first.waitFor(/api: Installing/);
    const second = await cli(dirA(), "deploy", "--yes");
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(
      new RegExp(`${name} \\(preview\\) is busy: deploy dep_\\w+ by \\S+@\\S+ \\(pid ${first.child.pid}, since `),
    );
    ok(await first.done);
  }, 600_000);

  it("stops gracefully on Ctrl-C, says where each service is, and the next deploy continues", async () => {
    writeFileSync(join(dirA(), "api", "changed.txt"), `${Date.now()}`);
    const run = startCli(["deploy", "--yes"], { cwd: dirA(), env: backend });
    await run.waitFor(/api: Installing/);
    run.child.kill("SIGINT");
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(r.stderr).toContain("Stopping: the steps in flight finish");
    expect(r.stderr).toMatch(/was stopped \(Ctrl-C\)/);
    expect(r.stderr).toMatch(/where each service is:\n\s+db: [^;\n]+; now running\n\s+api: [^;\n]+; now running/);
    const again = ok(await cli(dirA(), "deploy", "--yes"));
    expect(again.stdout).toMatch(/^Deployment complete/m);
    expect(containers(name).filter((c) => /_api-/.test(c))).toHaveLength(1);
    expect(JSON.parse(ok(await cli(dirA(), "deployments", "--json")).stdout).map((d: { outcome: string }) => d.outcome)).toContain(
      "canceled",
    );
  }, 600_000);

  it("shows and records a migration that failed under on_failure: continue, and rolls out anyway", async () => {
    const file = join(dirA(), "platform.yml");
    const yml = readFileSync(file, "utf8");
    const migrate =
      '    lifecycle:\n      migrate:\n        command: [sh, -c, "echo half of it went; exit 3"]\n        on_failure: continue\n';
    writeFileSync(file, yml.replace("    health:\n      http: /health", `${migrate}    health:\n      http: /health`));
    const r = ok(await cli(dirA(), "deploy", "--yes"));
    expect(r.stdout).toMatch(/^api: migration failed \(exit 3; rolling out anyway, on_failure: continue\)$/m);
    expect(r.stdout).toMatch(/^⚠ api: migration failed \(exit 3\); rolled out anyway \(on_failure: continue\); output in \S+/m);
    const record = JSON.parse(ok(await cli(dirA(), "deployments", "--json")).stdout)[0];
    expect(record.migrations.api).toMatchObject({ failed: true, exitCode: 3 });
    expect(record.migrations.api.output).toContain("half of it went");
    writeFileSync(file, yml);
  }, 600_000);

  it("builds a source that holds a symlink loop and a symlink leaving the context", async () => {
    symlinkSync(".", join(dirA(), "api", "loop"));
    symlinkSync("/etc", join(dirA(), "api", "escape"));
    symlinkSync("missing-file", join(dirA(), "api", "dangling"));
    try {
      const r = ok(await cli(dirA(), "deploy", "--yes"));
      expect(r.stdout).toMatch(/^api: built$/m);
      expect(await whoAt(await apiUrl(dirA()), ca)).toBe("first");
    } finally {
      for (const l of ["loop", "escape", "dangling"]) rmSync(join(dirA(), "api", l), { force: true });
    }
  }, 600_000);

  it("two first deploys at once share one edge, and neither removes the other's", async () => {
    // An edge of their own (PLATFORM_EDGE_NAME, a free port), new to the engine: removing the
    // engine's shared edge to make it new would cut every other test's traffic through it (the
    // cluster stage's Kubernetes stacks without a front door come in through it).
    const edge = `platform-edge-${name}-pair`;
    const env = { ...backend, PLATFORM_EDGE_NAME: edge, PLATFORM_HTTPS_PORT: String(await freePort()) };
    const pair = [`${name}e1`, `${name}e2`].map((p) => ({ project: p, env: "preview", dir: app(p, p, p), cliEnv: env }));
    const runs = pair.map((p) => startCli(["deploy", "--yes"], { cwd: p.dir, env }));
    const results = await Promise.all(runs.map((r) => r.done));
    deployed.push(...pair);
    edges.push(edge);
    const pairCa = ok(await runCli(["ca"], { cwd: pair[0]!.dir, env })).stdout;
    for (const [i, r] of results.entries()) {
      ok(r);
      expect(await whoAt(parseUrls(r.stdout).api as string, pairCa)).toBe(pair[i]!.project);
    }
    // One edge (and its name resolver).
    expect(docker("ps", "-a", "--filter", `name=^${edge}`, "--format", "{{.Names}}").split("\n").sort()).toEqual([edge, `${edge}-dns`]);
  }, 900_000);
});
