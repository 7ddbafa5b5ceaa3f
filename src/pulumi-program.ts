import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { formatDiagnostic, loadConfig, SECRETS_REF } from "./config/index.js";
import { buildPlan } from "./plan/build-plan.js";
import { planOnce } from "./plan/plan-once.js";
import { scanSources } from "./plan/scan-source.js";
import { buildPlanSettings, parseStackSettings } from "./plan/settings.js";
import { baseImages } from "./home/images.js";
import { buildCaFile, buildEnvKey } from "./home/keys.js";
import { homePaths } from "./home/layout.js";
import { createDockerTarget } from "./targets/docker/index.js";
import { kubernetesCluster } from "./test-cluster/kubeconfig.js";
import { kubeHasDefaultStorageClass } from "./runtime/kubernetes.js";

/**
 * Whether a cluster of one's own provisions claims by default (the telemetry store's claim); a
 * cluster kubectl cannot ask is taken to (a claim as for data services).
 */
async function defaultStorageClass(kubeconfig: string): Promise<boolean> {
  return kubeHasDefaultStorageClass(kubeconfig).catch(() => true);
}

const TARGETS = ["docker", "kubernetes"];

/**
 * Where a relative `platform:configFile` starts: the directory of Pulumi.yaml. The language
 * host runs the program in main's directory (dist/), and older hosts do not pass the root.
 */
function projectRoot(): string {
  for (let dir = process.cwd(); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "Pulumi.yaml"))) return dir;
    if (dirname(dir) === dir) return process.cwd();
  }
}

/**
 * The Node.js language host installs source-map-support, which maps every stack trace through
 * the source maps of each file in it, and the SDK takes a full stack trace for every resource
 * it registers (the resource's source position). Mapping those was about a tenth of the
 * program's CPU time in a no-op deploy; positions in the platform's own compiled files serve
 * as well. Set when the program runs, after the host's set-up.
 */
function plainStackTraces(): void {
  delete (Error as { prepareStackTrace?: unknown }).prepareStackTrace;
}

/**
 * The Pulumi program: stack config -> platform.yml -> plan -> target -> stack outputs.
 * `platform deploy` runs it inside the CLI's process (an inline program of the Automation API,
 * given the workspace directory as `root`), and infra engineers run the very same program with
 * `pulumi preview/up` on the stack (see docs/guide/using-pulumi-directly.md).
 */
export default async function program(root: string = projectRoot()): Promise<Record<string, pulumi.Input<string>>> {
  plainStackTraces();
  const cfg = new pulumi.Config("platform");
  const configFile = resolve(root, cfg.require("configFile"));
  // A rollback deploys a kept copy of platform.yml whose paths still start at the project.
  const projectDir = cfg.get("projectDir") ? resolve(root, cfg.require("projectDir")) : dirname(configFile);
  const project = pulumi.getProject();
  const env = pulumi.getStack();
  // What the stack keeps is all the program is given: the deploy wrote it (engine/deploy.ts).
  const kept = parseStackSettings(
    Object.fromEntries(["appsDomain", "httpsPort", "publicEdge", "frontDoor"].map((k) => [`platform:${k}`, cfg.get(k)])),
  );
  const settings = buildPlanSettings({ project, env, projectDir }, baseImages(), {}, kept);
  // Under `platform deploy`, the plan the deploy flow made (plan/plan-once.ts).
  const plan = await planOnce(configFile, settings, async () => {
    const loaded = await loadConfig(configFile, projectDir);
    if (!loaded.ok || !loaded.config) {
      throw new pulumi.RunError(`platform.yml is invalid:\n${loaded.errors.map(formatDiagnostic).join("\n")}`);
    }
    return buildPlan(loaded.config, settings, await scanSources(loaded.config, projectDir));
  });
  const target = cfg.get("target") || "docker";
  if (!TARGETS.includes(target)) throw new pulumi.RunError(`platform:target "${target}" is not a target; use one of ${TARGETS.join(", ")}`);
  // The environment's secrets (platform secrets set): a missing one stops the program before any resource.
  // Their Pulumi config namespace is the reference's own name: `${secrets.X}` reads `secrets:X`.
  const secretConfig = new pulumi.Config(SECRETS_REF);
  const missing = plan.secrets.filter((n) => secretConfig.getSecret(n) === undefined);
  if (missing.length) {
    throw new pulumi.RunError(
      `secret${missing.length > 1 ? "s" : ""} ${missing.join(", ")} not set in ${env}: ${missing.map((n) => `platform secrets set ${n}${env === "preview" ? "" : ` --env ${env}`}`).join("; ")}`,
    );
  }
  const secrets = Object.fromEntries(plan.secrets.map((n) => [n, secretConfig.requireSecret(n)]));
  const pinnedImages = cfg.get("images") ? (JSON.parse(cfg.require("images")) as Record<string, { tag: string; hash: string }>) : undefined;
  const deploymentId = cfg.get("deploymentId") || undefined;
  const common = { buildEnvKey: buildEnvKey(), caFile: buildCaFile(), logDir: homePaths.logDir(project, env), pinnedImages, secrets };
  const cluster = kubernetesCluster(cfg.get("kubeconfig"));
  // The Kubernetes target (and @pulumi/kubernetes) loads only for a stack that uses it.
  const outputs =
    target === "kubernetes"
      ? (await import("./targets/kubernetes/index.js")).createKubernetesTarget(plan, {
          ...common,
          ...cluster,
          registry: cfg.get("registry") || undefined,
          defaultStorageClass: cluster.testCluster ? undefined : await defaultStorageClass(cluster.kubeconfig),
        })
      : createDockerTarget(plan, { ...common, deploymentId, telemetryDir: homePaths.telemetryDir() });
  return { ...outputs, deployment_id: deploymentId ?? "" };
}
