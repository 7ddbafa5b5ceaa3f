import { type Config, referencedSecrets } from "../config/index.js";
import { requireCredentials } from "../engine/credentials.js";
import { resolveEdgeSettings } from "../engine/edge-record.js";
import { deployWithUpgrades, findUpgrades } from "../engine/db-upgrade.js";
import { clearExpiry, setExpiry } from "../engine/env-expiry.js";
import { missingSecrets } from "../engine/secret-names.js";
import { keptEdgeSettings, stackPlanSettings } from "../engine/stack-settings.js";
import { ExitCode, VisibleError } from "../errors.js";
import { planBaseImages } from "../plan/base-images.js";
import { DEFAULT_HTTPS_PORT } from "../plan/constants.js";
import { buildPlan } from "../plan/build-plan.js";
import { scanSources } from "../plan/scan-source.js";
import type { Plan } from "../plan/types.js";
import { ensureBaseImages } from "../provider/docker/base-images.js";
import { remoteEngineAddress } from "../docker-ssh.js";
import { plannedBuilds } from "../targets/shared/planned-build.js";
import { copyBaseImagesToServer } from "../runtime/base-images.js";
import { requireEngine } from "../runtime/docker.js";
import { DEFAULT_ENV, resolveStack } from "./context.js";
import { runDeploySession } from "./deploy-session.js";
import { copyDatabasesFrom, prepareCopy } from "./env-copy.js";
import { type FrontDoorFlags, resolveFrontDoor } from "./front-door.js";
import { deployTarget, handOverScaledReplicas, refuseForeignNamespace } from "./kube-guard.js";
import { runPlan } from "./plan-action.js";
import { checkExpires } from "./flags.js";
import { edgeSettings, type TargetFlags, targetSettings } from "./stack-flags.js";
import type { StackOptions } from "./stack-options.js";

export interface DeployOptions extends StackOptions, TargetFlags, FrontDoorFlags {
  dryRun?: boolean;
  /** Start a new environment with a copy of this one's databases. */
  from?: string;
  /** Remove the environment by itself after this long (`7d`), or `never`. */
  expires?: string;
}

/** What the Docker target cannot do that platform.yml asks for, said once per deploy. */
function targetNotes(config: Config, plan: Plan): string[] {
  const sized = plan.services.filter((s) => s.database?.storage && config.services[s.name]?.resources.storageWritten);
  return [
    ...(sized.length
      ? [
          `storage sizes (${sized.map((s) => `${s.name}: ${s.database?.storage}`).join(", ")}) are not enforced by Docker's local volumes; a Kubernetes volume enforces them`,
        ]
      : []),
    ...plan.services.flatMap((s) => (s.scale ? [scaleNote(s.name, s.scale)] : [])),
  ];
}

/** Docker has no autoscaler: a scaled service runs its fewest copies. */
const scaleNote = (name: string, { min, max }: { min: number; max: number }) =>
  `${name}: scale runs ${min} ${min === 1 ? "copy" : "copies"} on Docker, which has no autoscaler; on Kubernetes it runs ${min} to ${max} by CPU load`;

/** What each recipe detected and chose (package manager, versions, app, start, fallbacks), one line each. */
function recipeNotes(plan: Plan): string[] {
  return plan.services.flatMap((s) => (s.build?.kind === "recipe" ? s.build.recipe.notes.map((n) => `${s.name}: ${n}`) : []));
}

/** A `${secrets.NAME}` the environment lacks stops the deploy before anything is built. */
function refuseMissingSecrets(config: Config, project: string, env: string): void {
  const missing = missingSecrets(project, env, referencedSecrets(config));
  if (missing.length === 0) return;
  const flag = env === "preview" ? "" : ` --env ${env}`;
  throw new VisibleError(
    `secret${missing.length > 1 ? "s" : ""} ${missing.join(", ")} ${missing.length > 1 ? "are" : "is"} not set in ${project} (${env}); nothing was deployed`,
    {
      exitCode: ExitCode.failed,
      details: missing.map((n) => `  hint: platform secrets set ${n}${flag}   (reads the value from standard input or a hidden prompt)`),
    },
  );
}

/** `platform deploy`: checks what would stop it before the engine starts, then runs it in this terminal. */
export async function runDeploy(o: DeployOptions): Promise<void> {
  if (o.dryRun) return runPlan({ ...o, preview: true });
  // A mode chosen now (PLATFORM_EDGE, --edge) is remembered for this engine; else the engine's is used.
  const edge = resolveEdgeSettings(edgeSettings(o, process.env), true);
  const expiresIn = o.expires === undefined ? undefined : checkExpires(o.expires, o.env ?? DEFAULT_ENV, DEFAULT_ENV);
  const creds = requireCredentials();
  await requireEngine();
  const t = await resolveStack(o, true);
  if (o.from) await prepareCopy(t, o.from, creds);
  refuseMissingSecrets(t.config, t.project, t.env);
  // Plan once here: a source layout no recipe can build stops us before the engine starts.
  const plan = buildPlan(t.config, stackPlanSettings(t, edge), await scanSources(t.config, t.projectDir));
  const target = targetSettings(o, process.env);
  const where = await deployTarget(t, creds, target);
  await refuseForeignNamespace(t, where, plan);
  const door = await resolveFrontDoor(o, process.env, t, where, plan.appsDomain);
  // Back from a front door to the edge: the URLs take the edge's port again, not the front door's the stack kept.
  const httpsPort =
    door.httpsPort ??
    (!door.frontDoor && keptEdgeSettings(t.project, t.env).frontDoor ? (edge.httpsPort ?? DEFAULT_HTTPS_PORT) : undefined);
  // A Python or Node version the set-up did not build is built now, once (first need), on this
  // machine's engine; a server over SSH gets the base images from here, once.
  const progress = (line: string) => process.stderr.write(`→ ${line}\n`);
  await handOverScaledReplicas(t, where, plan, progress);
  const bases = planBaseImages(plan);
  await ensureBaseImages(bases, plan.images, { progress, local: where.target !== "kubernetes" && !!remoteEngineAddress() });
  if (where.target !== "kubernetes") await copyBaseImagesToServer(plan.images, progress, bases);
  const notes = [...recipeNotes(plan), ...(where.target === "kubernetes" ? door.notes : targetNotes(t.config, plan))];
  // Recorded before the deploy: what a failed first deploy left is removed on time too.
  if (expiresIn === null) clearExpiry(t.project, t.env);
  else if (expiresIn !== undefined) {
    const expiresAt = new Date(Date.now() + expiresIn).toISOString();
    setExpiry({
      project: t.project,
      env: t.env,
      expiresAt,
      duration: o.expires as string,
      configFile: t.configFile,
      backendUrl: creds.backendUrl,
    });
  }
  // A database whose version: went up is upgraded around the deploy (engine/db-upgrade.ts).
  const upgrades = where.target === "kubernetes" ? [] : await findUpgrades(t.project, t.env, plan);
  await deployWithUpgrades(upgrades, creds.passphrase, progress, () =>
    runDeploySession(
      t,
      creds,
      {
        configFile: t.configFile,
        ...edge,
        ...target,
        frontDoor: door.frontDoor,
        ...(httpsPort !== undefined ? { httpsPort } : {}),
        order: plan.services.map((s) => s.name),
        builds: plannedBuilds(plan.services),
      },
      { ...o, cronScheduler: where.target !== "kubernetes" },
      notes,
    ),
  );
  if (o.from) await copyDatabasesFrom(t, o.from, o);
}
