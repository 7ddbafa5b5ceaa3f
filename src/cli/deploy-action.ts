import { requireCredentials } from "../engine/credentials.js";
import { deployFlow } from "../engine/deploy-flow.js";
import { resolveEdgeSettings } from "../engine/edge-record.js";
import type { FrontDoorRequest } from "../runtime/target-runtime.js";
import { humanBytes } from "./backup-format.js";
import { DEFAULT_ENV, resolveStack } from "./context.js";
import { runDeploySession } from "./deploy-session.js";
import { pick, usage } from "./edge-flags.js";
import { checkExpires } from "./flags.js";
import { runPlan } from "./plan-action.js";
import { edgeSettings, type TargetFlags, targetSettings } from "./stack-flags.js";
import type { StackOptions } from "./stack-options.js";

/** --front-door auto|ingress|edge, --ingress-class, --cluster-issuer (and their PLATFORM_ variables). */
export interface FrontDoorFlags {
  frontDoor?: string;
  ingressClass?: string;
  clusterIssuer?: string;
}

export interface DeployOptions extends StackOptions, TargetFlags, FrontDoorFlags {
  dryRun?: boolean;
  /** Start a new environment with a copy of this one's databases. */
  from?: string;
  /** Remove the environment by itself after this long (`7d`), or `never`. */
  expires?: string;
}

const MODES = ["auto", "ingress", "edge"] as const;

/**
 * The way in as the flags and environment ask for it: --front-door (PLATFORM_FRONT_DOOR; default
 * auto), --ingress-class (PLATFORM_INGRESS_CLASS), --cluster-issuer (PLATFORM_CLUSTER_ISSUER). The
 * target decides with what its cluster offers (runtime/kube-deploy.ts).
 */
export function frontDoorRequest(o: FrontDoorFlags & { httpsPort?: string }, env: NodeJS.ProcessEnv): FrontDoorRequest {
  const mode = pick(o.frontDoor, "--front-door", env, "PLATFORM_FRONT_DOOR");
  if (mode.value !== undefined && !(MODES as readonly string[]).includes(mode.value))
    throw usage(`${mode.source}: "${mode.value}" is not a front door`, "use auto (the default), ingress or edge");
  return {
    mode,
    ingressClass: pick(o.ingressClass, "--ingress-class", env, "PLATFORM_INGRESS_CLASS"),
    clusterIssuer: pick(o.clusterIssuer, "--cluster-issuer", env, "PLATFORM_CLUSTER_ISSUER"),
    httpsPortGiven: pick(o.httpsPort, "--https-port", env, "PLATFORM_HTTPS_PORT").value !== undefined,
  };
}

/** `platform deploy`: the flags read here, the flow in the engine (engine/deploy-flow.ts), the live view in this terminal. */
export async function runDeploy(o: DeployOptions): Promise<void> {
  if (o.dryRun) return runPlan({ ...o, preview: true });
  // A mode chosen now (PLATFORM_EDGE, --edge) is remembered for this engine; else the engine's is used.
  const edge = resolveEdgeSettings(edgeSettings(o, process.env), true);
  const expires =
    o.expires === undefined ? undefined : { inMs: checkExpires(o.expires, o.env ?? DEFAULT_ENV, DEFAULT_ENV), text: o.expires };
  const frontDoor = frontDoorRequest(o, process.env);
  const creds = requireCredentials();
  const t = await resolveStack(o, true);
  const out = (line: string) => process[o.json ? "stderr" : "stdout"].write(`${line}\n`);
  await deployFlow({
    stack: t,
    creds,
    edge,
    target: targetSettings(o, process.env),
    frontDoor,
    ...(expires ? { expires } : {}),
    ...(o.from ? { from: o.from } : {}),
    progress: (line) => process.stderr.write(`→ ${line}\n`),
    onCopied: (c) =>
      out(`✓ ${c.service}: a copy of ${o.from}'s data (${humanBytes(c.bytes)}, backup ${c.backupId} of ${t.env}); ${o.from} was only read`),
    run: (eo, r) => runDeploySession(t, creds, eo, { ...o, cronScheduler: r.cronScheduler }, [...r.notes]),
  });
}
