import { referencedSecrets } from "../config/index.js";
import { ExitCode, VisibleError } from "../errors.js";
import { planBaseImages } from "../plan/base-images.js";
import { buildPlan } from "../plan/build-plan.js";
import { planOnce } from "../plan/plan-once.js";
import { DEFAULT_HTTPS_PORT } from "../plan/constants.js";
import { scanSources } from "../plan/scan-source.js";
import type { EdgeSettings } from "../plan/settings.js";
import type { Plan } from "../plan/types.js";
import { ensureBaseImages } from "../provider/docker/base-images.js";
import { requireEngine } from "../runtime/docker.js";
import type { FrontDoorRequest } from "../runtime/target-runtime.js";
import { plannedBuilds } from "../targets/shared/planned-build.js";
import type { Credentials } from "./credentials.js";
import type { DeployOptions, StackSettingKey } from "./deploy.js";
import type { StackRef } from "../data/db-target.js";
import { deployWithUpgrades, findUpgrades } from "../data/db-upgrade.js";
import { clearExpiry, setExpiry } from "./env-expiry.js";
import { type CopiedDatabase, copyDatabasesFrom, prepareCopy } from "../data/env-copy.js";
import { missingSecrets } from "./secret-names.js";
import { notifyDeployOutcome } from "./deploy-notify.js";
import { deployRuntime } from "./stack-ops.js";
import { keptEdgeSettings, stackPlanSettings } from "./stack-settings.js";

/** The engine's options of one deployment, as the flow hands them to whoever runs it. */
export type EngineOptions = Pick<DeployOptions, StackSettingKey | "order" | "builds" | "rollback">;

/** What runs the deployment itself once the flow has prepared it: the CLI's live view and Ctrl-C, or Studio's, or the agent's. */
export type DeploymentRunner = (eo: EngineOptions, o: { notes: readonly string[]; cronScheduler: boolean }) => Promise<void>;

/** One `platform deploy`, as any caller asks for it: the stack, and the choices already read from flags and environment. */
export interface DeployRequest {
  readonly stack: StackRef;
  readonly creds: Credentials;
  /** The edge's settings, resolved (and remembered when chosen now). */
  readonly edge: EdgeSettings;
  /** --target, --kubeconfig, --registry; unset ones keep the stack's. */
  readonly target: { target?: string; kubeconfig?: string; registry?: string };
  readonly frontDoor: FrontDoorRequest;
  /** Remove the environment by itself after this long (ms), or never (null); with the text asked for. */
  readonly expires?: { inMs: number | null; text: string };
  /** Start a new environment with a copy of this one's databases and secrets. */
  readonly from?: string;
  /** A step before the engine starts (`→ ...`). */
  progress(line: string): void;
  /** A database copied into the new environment (`--from`). */
  onCopied?(c: CopiedDatabase): void;
  run: DeploymentRunner;
}

/** What each recipe detected and chose (package manager, versions, app, start, fallbacks), one line each. */
function recipeNotes(plan: Plan): string[] {
  return plan.services.flatMap((s) => (s.build?.kind === "recipe" ? s.build.recipe.notes.map((n) => `${s.name}: ${n}`) : []));
}

/** A `${secrets.NAME}` the environment lacks stops the deploy before anything is built. */
function refuseMissingSecrets(t: StackRef): void {
  const missing = missingSecrets(t.project, t.env, referencedSecrets(t.config));
  if (missing.length === 0) return;
  const flag = t.env === "preview" ? "" : ` --env ${t.env}`;
  throw new VisibleError(
    `secret${missing.length > 1 ? "s" : ""} ${missing.join(", ")} ${missing.length > 1 ? "are" : "is"} not set in ${t.project} (${t.env}); nothing was deployed`,
    {
      exitCode: ExitCode.failed,
      details: missing.map((n) => `  hint: platform secrets set ${n}${flag}   (reads the value from standard input or a hidden prompt)`),
    },
  );
}

/** Recorded before the deploy: what a failed first deploy left is removed on time too. */
function recordExpiry(r: DeployRequest): void {
  if (!r.expires) return;
  const t = r.stack;
  if (r.expires.inMs === null) {
    clearExpiry(t.project, t.env);
    return;
  }
  setExpiry({
    project: t.project,
    env: t.env,
    expiresAt: new Date(Date.now() + r.expires.inMs).toISOString(),
    duration: r.expires.text,
    configFile: t.configFile,
    backendUrl: r.creds.backendUrl,
  });
}

/**
 * `platform deploy` from its checks to its last copy: what would stop it is checked before the
 * engine starts (secrets, the plan, the target's own refusals), the target prepares (its way in,
 * hand-overs, base images), a database whose version went up is upgraded around it, the runner
 * runs the deployment, and a `--from` environment then gets its copy of the data. The CLI keeps
 * the flags, the rendering and Ctrl-C; Studio and the agent give their own runner.
 */
export async function deployFlow(r: DeployRequest): Promise<void> {
  const t = r.stack;
  await requireEngine();
  if (r.from) {
    const copied = await prepareCopy(t, r.from, r.creds);
    if (copied.length) r.progress(`secrets copied from ${r.from} (values not shown): ${copied.join(", ")}`);
  }
  refuseMissingSecrets(t);
  // Plan once here: a source layout no recipe can build stops us before the engine starts. The
  // program's runs in this process take this plan when their settings are these (plan/plan-once.ts).
  const settings = stackPlanSettings(t, r.edge);
  const plan = await planOnce(t.configFile, settings, async () => buildPlan(t.config, settings, await scanSources(t.config, t.projectDir)));
  const runtime = await deployRuntime(t, r.creds, r.target);
  // A Python or Node version the set-up did not build is built now, once (first need); a server
  // over SSH gets the base images from here, once.
  const bases = planBaseImages(plan);
  const prepared = await runtime.prepareDeploy({
    plan,
    config: t.config,
    frontDoor: r.frontDoor,
    progress: r.progress,
    ensureBaseImages: async (local) => {
      await ensureBaseImages(bases, plan.images, { progress: r.progress, local });
      return bases;
    },
  });
  // Back from a front door to the edge: the URLs take the edge's port again, not the front door's the stack kept.
  const httpsPort =
    prepared.httpsPort ??
    (!prepared.frontDoor && keptEdgeSettings(t.project, t.env).frontDoor ? (r.edge.httpsPort ?? DEFAULT_HTTPS_PORT) : undefined);
  recordExpiry(r);
  // A database whose version: went up is upgraded around the deploy (data/db-upgrade.ts).
  const upgrades = runtime.words.upgradesDatabases ? await findUpgrades(t.project, t.env, plan) : [];
  const failure = await deployWithUpgrades(upgrades, r.creds.passphrase, r.progress, () =>
    r.run(
      {
        configFile: t.configFile,
        ...r.edge,
        ...r.target,
        frontDoor: prepared.frontDoor,
        ...(httpsPort !== undefined ? { httpsPort } : {}),
        order: plan.services.map((s) => s.name),
        builds: plannedBuilds(plan.services),
      },
      { notes: [...recipeNotes(plan), ...prepared.notes], cronScheduler: runtime.words.cronScheduler },
    ),
  ).then(
    () => undefined,
    (e: unknown) => e,
  );
  // notify: channels hear of a failed deployment, and of the next that succeeds.
  await notifyDeployOutcome(t, r.creds, failure, r.progress);
  if (failure) throw failure;
  if (r.from) await copyDatabasesFrom(t, r.from, r.creds, (c) => r.onCopied?.(c));
}
