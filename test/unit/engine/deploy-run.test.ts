import { beforeEach, describe, expect, it, vi } from "vitest";
import type { DeployOptions } from "../../../src/engine/deploy.js";
import type { KubeCluster } from "../../../src/runtime/kubernetes.js";
import { ExitCode, VisibleError } from "../../../src/errors.js";

/**
 * runDeployment around a fake engine and runtime: what it hands `deploy`, what it prunes after
 * a success, and the verdict of a failed or stopped deployment (what `platform deploy` prints).
 */
type LiveMap = Map<string, { running: boolean; detail: string }>;
const fake = {
  deploy: vi.fn<(o: DeployOptions) => Promise<unknown>>(),
  live: new Map() as LiveMap,
  kube: undefined as KubeCluster | undefined,
  phases: {} as Record<string, { phase: string }>,
  migrationLog: "",
};
const pruneImages = vi.fn(async () => [] as string[]);
const removeOrphans = vi.fn(async () => ["api: old"]);

vi.mock("../../../src/engine/deploy.js", () => ({ deploy: (o: DeployOptions) => fake.deploy(o) }));
vi.mock("../../../src/engine/history.js", () => ({
  imagesToKeep: () => new Set(["platform/shop_api:keep"]),
  listRecords: () => [{ services: fake.phases }],
}));
vi.mock("../../../src/engine/stack-ops.js", async () => {
  const { runtimeOf } = await import("../../../src/runtime/runtime-of.js");
  return { stackRuntime: async (s: { project: string; env: string }) => runtimeOf({ ...s, kubeconfig: fake.kube?.kubeconfig }) };
});
const ensureCertificates = vi.fn(async (hosts: readonly string[]) => hosts.map((host) => ({ host, ok: true })));
vi.mock("../../../src/engine/certificates.js", () => ({ ensureCertificates }));
vi.mock("../../../src/engine/stack-settings.js", () => ({ keptSettings: () => ({}) }));
vi.mock("../../../src/provider/drift.js", () => ({ inSyncWithDocker: async () => true }));
vi.mock("../../../src/runtime/docker.js", () => ({ liveStates: async () => fake.live, pruneImages, removeOrphans }));
vi.mock("../../../src/runtime/kubernetes.js", () => ({
  kubeServices: async () => fake.live,
  kubeFailedMigrationLog: async () => fake.migrationLog,
}));

const { DeploymentFailure, runDeployment } = await import("../../../src/engine/deploy-run.js");

const options = {
  configFile: "platform.yml",
  project: "shop",
  env: "preview",
  creds: { user: "u" } as never,
  services: ["database", "api", "web"],
};

async function failureOf(e: Error): Promise<unknown> {
  fake.deploy.mockRejectedValue(e);
  return runDeployment(options).catch((x: unknown) => x);
}

describe("runDeployment", () => {
  beforeEach(() => {
    fake.deploy.mockReset();
    pruneImages.mockClear();
    fake.live = new Map();
    fake.kube = undefined;
    fake.phases = {};
    fake.migrationLog = "";
  });

  it("hands deploy the Docker hooks, prunes what no rollback needs, and says which migrations failed", async () => {
    const record = {
      id: "dep_1",
      migrations: {
        api: { logFile: "/l/api.log", output: "", exitCode: 3, failed: true },
        web: { logFile: "/l/web.log", output: "", exitCode: 0 },
      },
    };
    fake.deploy.mockResolvedValue({ record, urls: { web: "https://web" }, hosts: ["web"] });
    const r = await runDeployment(options);
    expect(r.urls).toEqual({ web: "https://web" });
    // Each public host's certificate is made sure of, through the edge's port, before the URLs are given out.
    expect(ensureCertificates).toHaveBeenCalledWith(["web"], expect.objectContaining({ port: 443, public: false }));
    expect(r.certificates).toEqual([{ host: "web", ok: true }]);
    expect(r.warnings).toEqual(["api: migration failed (exit 3); rolled out anyway (on_failure: continue); output in /l/api.log"]);
    const given = fake.deploy.mock.calls[0]![0];
    expect(given).not.toHaveProperty("services");
    expect(await given.inSync!([])).toBe(true);
    expect(await given.removeOrphans!(new Set(["c1"]))).toEqual(["api: old"]);
    expect(removeOrphans).toHaveBeenCalledWith("shop", "preview", new Set(["c1"]));
    expect(pruneImages).toHaveBeenCalledWith("platform/shop_", new Set(["platform/shop_api:keep"]));
  });

  it("a failed deployment says what is not running now and where each service is", async () => {
    fake.phases = { database: { phase: "healthy" }, api: { phase: "failed" } };
    fake.live = new Map([
      ["database", { running: true, detail: "Up" }],
      ["api", { running: false, detail: "exited (exit code 3)" }],
    ]);
    const e = await failureOf(new VisibleError("deployment dep_1 failed (api)", { details: ["  boom", "engine log: /l/dep_1.log"] }));
    expect(e).toBeInstanceOf(DeploymentFailure);
    const f = e as InstanceType<typeof DeploymentFailure>;
    expect(f.message).toBe(
      "deployment dep_1 failed (api); not running now: api, web; fix the cause and run platform deploy again (platform status shows why)",
    );
    expect(f.exitCode).toBe(ExitCode.failed);
    expect(f.outcome).toBe("failed");
    expect(f.details).toEqual([
      "  boom",
      "engine log: /l/dep_1.log",
      "where each service is:",
      "  database: healthy; now running",
      "  api: failed; now exited (exit code 3)",
      "  web: untouched; now not deployed",
    ]);
    expect(f.services).toEqual([
      "database: healthy; now running",
      "api: failed; now exited (exit code 3)",
      "web: untouched; now not deployed",
    ]);
    expect(pruneImages).not.toHaveBeenCalled();
  });

  it("a stopped deployment whose services all run says so, and that the next deploy continues", async () => {
    fake.live = new Map(["database", "api", "web"].map((n) => [n, { running: true, detail: "Up" }]));
    const f = (await failureOf(
      new VisibleError("deployment dep_2 was stopped (Ctrl-C)", { exitCode: ExitCode.interrupted }),
    )) as InstanceType<typeof DeploymentFailure>;
    expect(f.message).toBe("deployment dep_2 was stopped (Ctrl-C); what was running before keeps running");
    expect(f.outcome).toBe("canceled");
    expect(f.exitCode).toBe(ExitCode.interrupted);
    expect(f.details.at(-1)).toBe("  the next platform deploy continues from here");
  });

  it("on Kubernetes, a failed migration's last lines come from its pod", async () => {
    fake.kube = { project: "shop", env: "preview", kubeconfig: "/k" };
    fake.phases = { api: { phase: "failed" } };
    fake.migrationLog = "alembic: boom\nexit 1";
    const f = (await failureOf(new VisibleError("deployment dep_3 failed (api)"))) as InstanceType<typeof DeploymentFailure>;
    expect(f.details.slice(0, 4)).toEqual([
      "api: its migration's last lines:",
      "    alembic: boom",
      "    exit 1",
      "where each service is:",
    ]);
  });

  it("any other error goes on as it is: nothing was rolled out", async () => {
    const locked = new VisibleError("shop (preview) is locked by another Pulumi operation");
    expect(await failureOf(locked)).toBe(locked);
    const bug = new Error("bug");
    expect(await failureOf(bug)).toBe(bug);
  });
});
