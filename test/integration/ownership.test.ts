import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateConfig } from "../../src/config/index.js";
import { buildPlan } from "../../src/plan/build-plan.js";
import { baseImages } from "../../src/home/images.js";
import { ok, runCli } from "./helpers/cli.js";
import { forgetProject, freshBackend, requireToolchain, unique } from "./helpers/env.js";

/**
 * "Nothing lost, nothing shared by mistake", on the real engine with a database-only app (no
 * builds, so it is quick): a stack never adopts another stack's or a hand-made network or
 * volume, keeps its data across a change of volume name, and never starts a second
 * PostgreSQL server on a volume that a container of someone else is running on.
 */
const project = unique("own");
const other = `${project}x`;
const backend = freshBackend();
const dir = mkdtempSync(join(tmpdir(), "platform-ownership-"));
const yml = (preset: string) =>
  `version: "1.0"\nname: ${project}\nservices:\n  db:\n    type: postgres\n    resources: {preset: ${preset}}\n`;
const deploy = () => runCli(["deploy", "--yes", "--project", project], { cwd: dir, env: backend });
const docker = (...args: string[]) => execFileSync("docker", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
const created = { volumes: new Set<string>(), containers: new Set<string>(), networks: new Set<string>() };

/** The names this stack wants, from the plan itself (naming may change; the rules may not). */
function planned(): { volume: string; network: string } {
  const r = validateConfig(yml("small"), { file: "platform.yml", projectDir: dir });
  const plan = buildPlan(
    r.config!,
    { project, env: "preview", appsDomain: "localhost", httpsPort: 443, projectDir: dir, images: baseImages() },
    new Map(),
  );
  return { volume: plan.services[0]!.database!.volumeName, network: plan.network };
}

function dbContainer(): string {
  return docker("ps", "-q", "--filter", `label=platform.project=${project}`, "--filter", "label=platform.service=db");
}

const psql = (sql: string) => docker("exec", dbContainer(), "psql", "-U", "app", "-d", "app", "-tAc", sql);
const labelArgs = (labels: Record<string, string>) => Object.entries(labels).flatMap(([k, v]) => ["--label", `${k}=${v}`]);
const mine = () => ({ "platform.project": project, "platform.env": "preview", "platform.service": "db" });

describe("never adopt what another stack owns", () => {
  let names: { volume: string; network: string };

  beforeAll(() => {
    requireToolchain();
    writeFileSync(join(dir, "platform.yml"), yml("small"));
    names = planned();
  });

  afterAll(async () => {
    for (const c of created.containers) execFileSync("docker", ["rm", "-f", c], { stdio: "ignore" });
    await runCli(["destroy", "--yes", "--delete-data", "--project", project], { cwd: dir, env: backend });
    for (const v of created.volumes) execFileSync("sh", ["-c", `docker volume rm ${v} >/dev/null 2>&1 || true`]);
    for (const n of created.networks) execFileSync("sh", ["-c", `docker network rm ${n} >/dev/null 2>&1 || true`]);
    rmSync(dir, { recursive: true, force: true });
    forgetProject(project);
  });

  it("refuses a network of the wanted name that another stack owns", async () => {
    created.networks.add(names.network);
    docker("network", "create", ...labelArgs({ "platform.project": other, "platform.env": "preview" }), names.network);
    const r = await deploy();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`network "${names.network}" already exists and is not this stack's (it has project ${other}, env preview`);
    docker("network", "rm", names.network);
    // The volume may have been made beside the refused network: start the next cases clean.
    ok(await runCli(["destroy", "--yes", "--delete-data", "--project", project], { cwd: dir, env: backend }));
  }, 300_000);

  it("refuses a volume of the wanted name that another stack owns, and leaves it alone", async () => {
    created.volumes.add(names.volume);
    docker("volume", "create", ...labelArgs({ ...mine(), "platform.project": other }), names.volume);
    const r = await deploy();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `volume "${names.volume}" already exists and is not this database's (it has project ${other}, env preview, service db`,
    );
    expect(dbContainer()).toBe("");
    expect(docker("volume", "inspect", "-f", '{{index .Labels "platform.project"}}', names.volume)).toBe(other);
    docker("volume", "rm", names.volume);
  }, 300_000);

  it("refuses a volume of the wanted name that a user made by hand", async () => {
    docker("volume", "create", names.volume);
    const r = await deploy();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`volume "${names.volume}" already exists and is not this database's (it has no platform labels`);
    expect(r.stderr).toContain(`docker volume rm ${names.volume}`);
    docker("volume", "rm", names.volume);
  }, 300_000);

  it("adopts this database's own volume under an older name: the rows survive a change of volume name", async () => {
    ok(await deploy());
    psql("CREATE TABLE kept (x int); INSERT INTO kept VALUES (42);");
    ok(await runCli(["destroy", "--yes", "--project", project], { cwd: dir, env: backend }));
    // The volume as an older naming scheme called it: same owner labels, another name.
    const legacy = `${project}-legacy-data`;
    created.volumes.add(legacy);
    docker("volume", "create", ...labelArgs({ ...mine(), "platform.managed": "true" }), legacy);
    docker("run", "--rm", "-v", `${names.volume}:/from`, "-v", `${legacy}:/to`, baseImages().postgres, "sh", "-c", "cp -a /from/. /to/");
    docker("volume", "rm", names.volume);
    ok(await deploy());
    // Its data (the WAL archive is a volume of its own, mounted elsewhere).
    const mounts = docker("inspect", "-f", '{{range .Mounts}}{{.Destination}}={{.Name}}{{"\\n"}}{{end}}', dbContainer());
    expect(mounts.split("\n")).toContain(`/var/lib/postgresql/data=${legacy}`);
    expect(psql("SELECT x FROM kept")).toBe("42");
    expect(() => docker("volume", "inspect", names.volume)).toThrow();
  }, 600_000);

  it("never starts a second server on a volume that someone else's container runs on; the database keeps serving", async () => {
    const legacy = `${project}-legacy-data`;
    const before = dbContainer();
    const intruder = `${project}-intruder`;
    created.containers.add(intruder);
    docker("run", "-d", "--name", intruder, "-v", `${legacy}:/data`, baseImages().postgres, "sleep", "600");
    writeFileSync(join(dir, "platform.yml"), yml("medium"));
    const r = await deploy();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`volume "${legacy}" is in use by the running container ${intruder} (no platform labels`);
    expect(r.stderr).toContain("two PostgreSQL servers must never share a data directory");
    expect(dbContainer()).toBe(before);
    expect(psql("SELECT x FROM kept")).toBe("42");
    docker("rm", "-f", intruder);
    ok(await deploy());
    const after = dbContainer();
    expect(after).not.toBe(before);
    expect(psql("SELECT x FROM kept")).toBe("42");
    const host = JSON.parse(docker("inspect", "-f", "{{json .HostConfig}}", after));
    expect(host).toMatchObject({ PidsLimit: 1024, Memory: 1024 ** 3, SecurityOpt: ["no-new-privileges:true"] });
    expect(host.PortBindings ?? {}).toEqual({});
    expect(docker("ps", "-aq", "--filter", `label=platform.project=${project}`).split("\n")).toHaveLength(1);
  }, 600_000);
});
