import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpsRequest, ok, parseUrls, runCli } from "./helpers/cli.js";
import { copyExample, forgetProject, freshBackend, pulumiOnStack, requireToolchain, unique } from "./helpers/env.js";
import { clusterLayout, TEST_REGISTRY } from "../../src/test-cluster/layout.js";
import { clusterUp, kubectl } from "./helpers/kubernetes.js";

/**
 * The catalog example on the Kubernetes test cluster, deployed as to a cluster of one's own: the
 * cluster is named by a kubeconfig the platform does not know as its test cluster, so images go
 * through a registry (the test cluster's, on 127.0.0.1) and pods pull them by digest. Two
 * `source` services, one calling the other by its Service DNS name, both public over HTTPS
 * through 127.0.0.1; then status, logs and destroy read and act on the cluster.
 */
const project = unique("k8s-cat");
const namespace = `${project}-preview`;
const backend = freshBackend();
const work = mkdtempSync(join(tmpdir(), "platform-k8s-catalog-"));
const dir = join(work, "catalog");
const kubeconfig = join(work, "own-cluster.yaml");
const cli = (...args: string[]) => runCli(args, { cwd: dir, env: backend });
let urls: Record<string, string> = {};
let ca = "";

describe("catalog example on the Kubernetes test cluster", () => {
  beforeAll(async () => {
    requireToolchain();
    await clusterUp();
    copyExample("catalog", dir);
    copyFileSync(clusterLayout().adminKubeconfig, kubeconfig);
  }, 45 * 60_000);

  afterAll(async () => {
    await cli("destroy", "--yes", "--project", project);
    rmSync(work, { recursive: true, force: true });
    forgetProject(project);
  }, 300_000);

  it("a cluster without a way to pull this machine's images is refused before anything is created", async () => {
    const r = await cli("deploy", "--yes", "--project", project, "--target", "kubernetes", "--kubeconfig", kubeconfig);
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toContain(`the cluster of ${kubeconfig} cannot pull the images built on this machine (api, traffic)`);
    expect(r.stdout + r.stderr).toContain("platform deploy --registry HOST[:PORT][/PATH]");
    expect(kubectl("get", "namespaces", "-o", "name")).not.toContain(`namespace/${namespace}`);
  }, 600_000);

  it("deploys both services through the registry and prints their URLs", async () => {
    // The target and the kubeconfig are kept from the refused deploy; the registry is added.
    const r = ok(await cli("deploy", "--yes", "--project", project, "--registry", TEST_REGISTRY));
    urls = parseUrls(r.stdout);
    expect(Object.keys(urls).sort()).toEqual(["api", "traffic"]);
    expect(r.stdout).toMatch(/^Deployment complete \(dep_[a-z0-9]+\)$/m);
    ca = ok(await cli("ca")).stdout;
  }, 900_000);

  it("serves the catalog API over HTTPS, and the traffic service reaches it by its Service name", async () => {
    const products = await httpsRequest(`${urls.api}/products`, ca);
    expect(products.status, products.body).toBe(200);
    expect(JSON.parse(products.body).length).toBeGreaterThan(0);
    expect((await httpsRequest(`${urls.api}/products/999999`, ca)).status).toBe(404);
    const r = await httpsRequest(`${urls.traffic}/run?count=20`, ca, { timeoutMs: 60_000 });
    expect(r.status, r.body).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ sent: 20, ok: 16, errors: 4 });
  }, 120_000);

  it("status and logs read the cluster; the stack remembers its target", async () => {
    const s = JSON.parse(ok(await cli("status", "--project", project, "--json")).stdout);
    expect(s.services.map((x: { service: string; state: string }) => `${x.service}:${x.state}`)).toEqual([
      "api:running",
      "traffic:running",
    ]);
    expect(s.services[0].url).toBe(urls.api);
    expect(s.services[0].image).toMatch(new RegExp(`^${TEST_REGISTRY}/platform/${project}_api@sha256:[0-9a-f]{64}$`));
    const pod = JSON.parse(kubectl("-n", namespace, "get", "pods", "-l", "app.kubernetes.io/name=api", "-o", "json")).items[0];
    expect(pod.spec.containers[0].imagePullPolicy).toBe("IfNotPresent");
    const catalog = (await (await fetch(`http://${TEST_REGISTRY}/v2/_catalog`)).json()) as { repositories: string[] };
    expect(catalog.repositories).toEqual(expect.arrayContaining([`platform/${project}_api`, `platform/${project}_traffic`]));
    const logs = ok(await cli("logs", "api", "--tail", "50", "--project", project));
    expect(logs.stdout + logs.stderr).toMatch(/Uvicorn running|Application startup complete/);
    // The stack's telemetry receiver runs in its namespace (its image pushed like the services'): the SDK exports there.
    expect(kubectl("-n", namespace, "exec", "deploy/api", "--", "printenv", "OTEL_EXPORTER_OTLP_ENDPOINT").trim()).toBe(
      `http://platform-telemetry.${namespace}.svc.cluster.local:4318`,
    );
    expect(logs.stdout + logs.stderr).not.toMatch(/Failed to export/);
    // No --target this time: the stack setting keeps it on Kubernetes.
    const again = ok(await cli("deploy", "--project", project));
    expect(again.stdout).toContain("api: unchanged");
  }, 300_000);

  it("a migration that fails under on_failure: continue is shown and recorded, and the service rolls out anyway", async () => {
    const file = join(dir, "platform.yml");
    const yml = readFileSync(file, "utf8");
    const migrate =
      '    lifecycle:\n      migrate:\n        command: [sh, -c, "echo half of it went; exit 3"]\n        on_failure: continue\n';
    expect(yml).toContain("  traffic:\n    type: fastapi\n");
    // traffic: a change of its variables rolls its pods, and its migration runs before they roll.
    writeFileSync(
      file,
      yml
        .replace("  traffic:\n    type: fastapi\n", `  traffic:\n    type: fastapi\n${migrate}`)
        .replace("API_URL: ${api.url}", "API_URL: ${api.url}\n      ROUND: two"),
    );
    try {
      const r = ok(await cli("deploy", "--project", project));
      expect(r.stdout).toMatch(/^traffic: migration failed \(exit 3; rolling out anyway, on_failure: continue\)$/m);
      expect(r.stdout).toMatch(/^⚠ traffic: migration failed \(exit 3\); rolled out anyway \(on_failure: continue\); output in \S+/m);
      const record = JSON.parse(ok(await cli("deployments", "--project", project, "--json")).stdout)[0];
      expect(record.migrations.traffic).toMatchObject({ failed: true, exitCode: 3 });
      expect(record.migrations.traffic.output).toContain("half of it went");
      expect(kubectl("-n", namespace, "exec", "deploy/traffic", "--", "printenv", "ROUND").trim()).toBe("two");
    } finally {
      writeFileSync(file, yml);
    }
    ok(await cli("deploy", "--project", project));
  }, 600_000);

  it("a namespace that another stack made is never adopted: the deploy is refused before anything is built", async () => {
    const taken = `${project}-other`;
    kubectl("create", "namespace", taken);
    kubectl("label", "namespace", taken, "platform.project=someone-else", "platform.env=prod");
    try {
      const r = await cli(
        "deploy",
        "--yes",
        "--project",
        project,
        "--env",
        "other",
        "--target",
        "kubernetes",
        "--kubeconfig",
        kubeconfig,
        "--registry",
        TEST_REGISTRY,
      );
      expect(r.code).not.toBe(0);
      expect(r.stdout + r.stderr).toContain(
        `the Kubernetes namespace ${taken} of ${project} (other) already exists and belongs to project someone-else (prod); nothing was deployed`,
      );
      expect(kubectl("get", "namespace", taken, "-o", "jsonpath={.metadata.labels.platform\\.project}")).toBe("someone-else");
      expect(kubectl("-n", taken, "get", "all", "-o", "name").trim()).toBe("");
    } finally {
      kubectl("delete", "namespace", taken, "--wait=false");
    }
  }, 300_000);

  it("destroy removes the services and their namespace (no database: nothing kept)", async () => {
    ok(await cli("destroy", "--yes", "--project", project));
    expect(kubectl("get", "namespaces", "-o", "name")).not.toContain(`namespace/${namespace}`);
    const s = JSON.parse((await cli("status", "--project", project, "--json")).stdout);
    expect(s.services.map((x: { state: string }) => x.state)).toEqual(["not deployed", "not deployed"]);
  }, 300_000);

  it("a plain `pulumi up` refuses a namespace that another stack made, before anything is made in it", async () => {
    // The destroyed stack keeps its settings: `pulumi up` would bring it back, into a namespace someone else has since made.
    kubectl("create", "namespace", namespace);
    kubectl("label", "namespace", namespace, "platform.project=someone-else", "platform.env=prod");
    try {
      let failure = "";
      try {
        pulumiOnStack(project, backend, ["up", "--yes", "--skip-preview"]);
      } catch (e) {
        const x = e as { stdout?: string; stderr?: string };
        failure = `${x.stdout ?? ""}${x.stderr ?? ""}`;
      }
      expect(failure).toContain(
        `the Kubernetes namespace ${namespace} of ${project} (preview) already exists and belongs to project someone-else (prod)`,
      );
      expect(kubectl("get", "namespace", namespace, "-o", "jsonpath={.metadata.labels.platform\\.project}")).toBe("someone-else");
      expect(
        kubectl("-n", namespace, "get", "all,secret,configmap", "-o", "name")
          .split("\n")
          .filter((l) => l && !l.includes("kube-root-ca")),
      ).toEqual([]);
    } finally {
      kubectl("delete", "namespace", namespace, "--wait=false");
    }
  }, 300_000);
});
