import type { Command } from "commander";
import { type Config, referencedSecrets } from "../config/index.js";
import { ExitCode, VisibleError } from "../errors.js";
import type { Plan } from "../plan/types.js";
import { resolveStackTarget, type StackOptions } from "./context.js";
import { edgeSettings, planSettings, stackOptions, type TargetFlags, targetSettings } from "./stack-flags.js";

interface DeployOptions extends StackOptions, TargetFlags {
  dryRun?: boolean;
}

/** What the Docker target cannot do that platform.yml asks for, said once per deploy. */
function targetNotes(config: Config, plan: Plan): string[] {
  const sized = plan.services.filter((s) => s.database?.storage && config.services[s.name]?.resources.storageWritten);
  return sized.length
    ? [`storage sizes (${sized.map((s) => `${s.name}: ${s.database?.storage}`).join(", ")}) are not enforced by Docker's local volumes; a Kubernetes volume enforces them`]
    : [];
}

/** What each recipe detected and chose (package manager, versions, app, start, fallbacks), one line each. */
export function recipeNotes(plan: Plan): string[] {
  return plan.services.flatMap((s) => (s.build?.kind === "recipe" ? s.build.recipe.notes.map((n) => `${s.name}: ${n}`) : []));
}

/** A `${secrets.NAME}` the environment lacks stops the deploy before anything is built. */
async function refuseMissingSecrets(config: Config, project: string, env: string): Promise<void> {
  const { missingSecrets } = await import("../engine/secret-names.js");
  const missing = missingSecrets(project, env, referencedSecrets(config));
  if (missing.length === 0) return;
  const flag = env === "preview" ? "" : ` --env ${env}`;
  throw new VisibleError(`secret${missing.length > 1 ? "s" : ""} ${missing.join(", ")} ${missing.length > 1 ? "are" : "is"} not set in ${project} (${env}); nothing was deployed`, {
    exitCode: ExitCode.failed,
    details: missing.map((n) => `  hint: platform secrets set ${n}${flag}   (reads the value from standard input or a hidden prompt)`),
  });
}

async function runDeploy(o: DeployOptions): Promise<void> {
  if (o.dryRun) {
    const { runPlan } = await import("./plan.js");
    return runPlan({ ...o, preview: true });
  }
  const edge = edgeSettings(o, process.env);
  const { requireCredentials } = await import("../engine/credentials.js");
  const creds = requireCredentials();
  const { requireEngine } = await import("../runtime/docker.js");
  await requireEngine();
  const t = await resolveStackTarget(o, true);
  await refuseMissingSecrets(t.config, t.project, t.env);
  // Plan once here: a source layout no recipe can build stops us before the engine starts.
  const { buildPlan } = await import("../plan/build-plan.js");
  const { scanSources } = await import("../plan/scan-source.js");
  const plan = buildPlan(t.config, await planSettings(t, edge), await scanSources(t.config, t.projectDir));
  const { runEngineDeploy } = await import("./deploy-run.js");
  const target = targetSettings(o, process.env);
  const { deployTarget, refuseForeignNamespace } = await import("./kube-guard.js");
  const where = await deployTarget(t, creds, target);
  await refuseForeignNamespace(t, where, plan);
  const notes = [...recipeNotes(plan), ...(where.target === "kubernetes" ? [] : targetNotes(t.config, plan))];
  await runEngineDeploy(t, creds, { configFile: t.configFile, ...edge, ...target, order: plan.services.map((s) => s.name) }, o, notes);
}

export function registerDeploy(program: Command): void {
  stackOptions(program.command("deploy"))
    .description("build, migrate, start and serve every service of platform.yml on the local Docker engine")
    .option("-y, --yes", "create the project without asking (CI)")
    .option("--dry-run", "say what a deploy would do and change nothing (same as platform plan)")
    .option("--apps-domain <domain>", "base domain of public URLs (env PLATFORM_APPS_DOMAIN)", undefined)
    .option("--https-port <port>", "port of the HTTPS edge on 127.0.0.1 (env PLATFORM_HTTPS_PORT; default 443)")
    .option("--target <name>", "where the stack runs: docker or kubernetes (env PLATFORM_TARGET; kept per environment; default docker)")
    .option("--kubeconfig <path>", "the Kubernetes target's cluster (env PLATFORM_KUBECONFIG; kept per environment; default KUBECONFIG, the test cluster, ~/.kube/config)")
    .option("--registry <host[:port][/path]>", "where the Kubernetes target pushes images for the cluster to pull (env PLATFORM_REGISTRY; kept per environment; default: imported into the test cluster)")
    .action(runDeploy);
}
