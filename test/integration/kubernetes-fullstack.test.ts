import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpsRequest, ok, parseUrls, runCli } from "./helpers/cli.js";
import { copyExample, forgetProject, freshBackend, pulumiOnStack, requireToolchain, unique } from "./helpers/env.js";
import { eventsApi, expectRows } from "./helpers/events.js";
import { clusterUp, kubectl, podsOf } from "./helpers/kubernetes.js";
import { deployWithBrokenMigration, expectApiRolledOutUnderLoad, expectFullstackDeployed } from "./helpers/fullstack-order.js";

/**
 * Issue #14 end to end: the fullstack example deployed by the CLI to the Kubernetes test cluster
 * (`--target kubernetes`), served over HTTPS through the platform's edge on 127.0.0.1, rolled
 * out under load, broken by a failing migration, previewed with plain pulumi, destroyed and
 * brought back with its rows.
 */
const project = unique("k8s-fs");
const namespace = `${project}-preview`;
const backend = freshBackend();
const dir = join(mkdtempSync(join(tmpdir(), "platform-k8s-fullstack-")), "fullstack");
const cli = (...args: string[]) => runCli(args, { cwd: dir, env: backend });
const deploy = () => cli("deploy", "--yes", "--project", project, "--target", "kubernetes");
let urls: Record<string, string> = {};
let ca = "";

async function status(): Promise<{ api: string; database: string; event_count: number; latest_event: string }> {
  const r = await httpsRequest(`${urls.api}/api/status`, ca);
  expect(r.status).toBe(200);
  return JSON.parse(r.body);
}

describe("fullstack example on the Kubernetes test cluster", () => {
  beforeAll(async () => {
    requireToolchain();
    await clusterUp();
    copyExample("fullstack", dir);
  }, 45 * 60_000);

  afterAll(async () => {
    await cli("destroy", "--yes", "--delete-data", "--project", project);
    rmSync(dir, { recursive: true, force: true });
    forgetProject(project);
  }, 300_000);

  it("deploys in dependency order as Deployments, a StatefulSet and a migration Job, and prints the public URLs", async () => {
    const r = ok(await deploy());
    urls = expectFullstackDeployed(r.stdout, project);
    ca = ok(await cli("ca")).stdout;
    const objects = kubectl("-n", namespace, "get", "deployment,statefulset,service,job,pvc", "-o", "name")
      .split("\n")
      .filter(Boolean)
      .sort();
    expect(objects.filter((o) => !o.startsWith("job"))).toEqual([
      "deployment.apps/api",
      // The stack's telemetry receiver, which api and web export to.
      "deployment.apps/platform-telemetry",
      "deployment.apps/web",
      "persistentvolumeclaim/database-data",
      "persistentvolumeclaim/platform-telemetry-store",
      "service/api",
      "service/database",
      "service/platform-telemetry",
      "service/web",
      "statefulset.apps/database",
    ]);
    expect(objects.filter((o) => o.startsWith("job"))).toHaveLength(1);
    const strategy = JSON.parse(kubectl("-n", namespace, "get", "deployment/api", "-o", "jsonpath={.spec.strategy.rollingUpdate}"));
    expect(strategy).toMatchObject({ maxUnavailable: 0 });
  }, 900_000);

  it("serves both URLs over HTTPS through 127.0.0.1, verified against the platform CA; the API reaches postgres by its Service name", async () => {
    expect(await status()).toMatchObject({ api: "ok", database: "ok" });
    const page = await httpsRequest(urls.web as string, ca);
    expect(page.status).toBe(200);
    expect(page.body).toContain("event");
    await expect(httpsRequest(`${urls.api}/api/status`, "")).rejects.toThrow(/certificate/);
    const posted = await httpsRequest(`${urls.api}/api/events`, ca, { method: "POST", body: { message: "kept on the claim" } });
    expect(posted.status).toBeLessThan(300);
    expect((await status()).latest_event).toBe("kept on the claim");
  });

  it("the database serves TLS: its key only in its pod (postgres 0600, in memory), the api verifies it with the stack's CA", () => {
    const objects = (kind: string) =>
      (
        JSON.parse(kubectl("-n", namespace, "get", kind, "-o", "json")) as {
          items: { metadata: { name: string }; type?: string; data?: object }[];
        }
      ).items;
    const tls = objects("secret").filter((x) => x.metadata.name.startsWith("database-tls"));
    expect(tls.map((x) => x.type)).toEqual(["kubernetes.io/tls"]);
    expect(Object.keys(tls[0]?.data ?? {}).sort()).toEqual(["tls.crt", "tls.key"]);
    const caMap = objects("configmap").filter((x) => x.metadata.name.startsWith("database-ca"));
    expect(caMap.map((x) => Object.keys(x.data ?? {}))).toEqual([["ca.crt"]]);
    const inDb = (...cmd: string[]) => kubectl("-n", namespace, "exec", "database-0", "--", ...cmd).trim();
    expect(inDb("sh", "-c", 'psql -U "$POSTGRES_USER" -d "$POSTGRES_DB" -tAc "show ssl"')).toBe("on");
    expect(inDb("stat", "-c", "%U %a", "/etc/platform/tls/server.key")).toBe("postgres 600");
    const api = podsOf(namespace, "api")[0] as string;
    const inApi = (...cmd: string[]) => kubectl("-n", namespace, "exec", api, "--", ...cmd).trim();
    expect(inApi("printenv", "PGSSLROOTCERT")).toBe("/etc/platform/tls/ca.crt");
    // verify-full through the Service's name, with the CA the platform mounted; disable stays plain.
    const ssl = (mode: string) =>
      inApi(
        "python",
        "-c",
        `import os, psycopg; c = psycopg.connect(os.environ["DATABASE_URL"] + "?sslmode=${mode}"); print(c.pgconn.ssl_in_use)`,
      );
    expect(ssl("verify-full")).toBe("True");
    expect(ssl("disable")).toBe("False");
  });

  it("a change to the API rolls out under load with no failed request; the others stay", async () => {
    const { r, stats } = await expectApiRolledOutUnderLoad(dir, urls.api as string, ca, deploy, (s) => podsOf(namespace, s));
    console.log(`rollout under load: ${stats.sent} requests, ${stats.failed} failed, deploy ${r.seconds.toFixed(1)}s`);
  }, 600_000);

  it("replicas: 2 runs two ready pods of the api, spread over the nodes, with a disruption budget; status says so", async () => {
    const yml = join(dir, "platform.yml");
    writeFileSync(yml, readFileSync(yml, "utf8").replace("  api:\n", "  api:\n    replicas: 2\n"));
    ok(await deploy());
    const api = (path: string, kind = "deployment") => kubectl("-n", namespace, "get", kind, "api", "-o", `jsonpath={${path}}`);
    expect(api(".status.readyReplicas")).toBe("2");
    expect(podsOf(namespace, "api")).toHaveLength(2);
    expect(api(".spec.template.spec.topologySpreadConstraints[0].topologyKey")).toBe("kubernetes.io/hostname");
    expect(api(".spec.maxUnavailable", "pdb")).toBe("1");
    expect(ok(await cli("status", "--project", project)).stdout).toMatch(/^api\s+running\s+Deployment ready 2\/2\s/m);
    expect((await httpsRequest(`${urls.api}/health`, ca)).status).toBe(200);
  }, 600_000);

  it("a failing migration stops the deploy and the old pods keep serving", async () => {
    const api = podsOf(namespace, "api");
    const { r, stats } = await deployWithBrokenMigration(dir, urls.api as string, ca, deploy);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("api: migrating");
    expect(r.stdout).toContain("api: failed");
    expect(r.stderr).toContain("api-migrate");
    // The migration's own output, read from its pod.
    expect(r.stderr).toContain("api: its migration's last lines:");
    expect(r.stderr).toContain("no_such_table");
    expect(stats.failures).toEqual([]);
    expect(stats.sent).toBeGreaterThan(20);
    expect(podsOf(namespace, "api")).toEqual(api);
    const history = JSON.parse(ok(await cli("deployments", "--project", project, "--json")).stdout);
    expect(history[0].outcome).toBe("failed");
  }, 600_000);

  it("plain `pulumi preview` on the stack shows no changes after a deploy", async () => {
    ok(await deploy());
    expect(pulumiOnStack(project, backend, ["preview", "--expect-no-changes"])).toMatch(/\d+ unchanged/);
  }, 600_000);

  it("keeps the database rows through destroy and redeploy (retention: permanent keeps the claim)", async () => {
    const marker = unique("kept");
    const kept = [`${marker}-1`, `${marker}-2`];
    const { post } = eventsApi(() => ({ api: urls.api as string, ca }), marker);
    for (const message of kept) await post(message);
    ok(await cli("destroy", "--yes", "--project", project));
    expect(kubectl("-n", namespace, "get", "deployment,statefulset", "-o", "name").trim()).toBe("");
    expect(kubectl("-n", namespace, "get", "pvc", "-o", "name").trim()).toBe("persistentvolumeclaim/database-data");
    urls = parseUrls(ok(await deploy()).stdout);
    await expectRows(urls.api as string, ca, kept, marker);
  }, 900_000);
});
