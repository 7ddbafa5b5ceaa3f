import { DEFAULT_APPS_DOMAIN, DEFAULT_HTTPS_PORT } from "./constants.js";
import type { BaseImageSet, FrontDoor, PlanContext, PublicEdge } from "./types.js";

/** The edge settings a plan depends on, as one source gives them (any may be unset). */
export interface EdgeSettings {
  readonly appsDomain?: string;
  readonly httpsPort?: number;
  /** The public edge's settings, null for the local edge; undefined: this source does not say. */
  readonly publicEdge?: PublicEdge | null;
  /** Kubernetes: the cluster's ingress, null for the edge on this machine; undefined: this source does not say. */
  readonly frontDoor?: FrontDoor | null;
}

/** Every setting a stack keeps between deploys (its platform:* stack config), as one source gives them. */
export interface StackSettings extends EdgeSettings {
  /** docker or kubernetes. */
  readonly target?: string;
  readonly kubeconfig?: string;
  readonly registry?: string;
}

/** A stack's settings once every source has been asked: the defaults fill what none gave. */
export interface ResolvedSettings {
  readonly appsDomain: string;
  readonly httpsPort: number;
  readonly publicEdge: PublicEdge | null;
  readonly frontDoor: FrontDoor | null;
  readonly target: string;
  readonly kubeconfig?: string;
  readonly registry?: string;
}

/** The stack config keys of the settings (`platform:` + name). */
const KEYS = ["appsDomain", "httpsPort", "publicEdge", "frontDoor", "target", "kubeconfig", "registry"] as const;

/**
 * The one precedence of a stack's settings: what this deploy was given (flags over their PLATFORM_*
 * variables over the engine's remembered edge: the CLI and engine/edge-record.ts resolve those
 * first) wins over what the stack keeps from its last deploy, which wins over the defaults. A
 * null public edge or front door is a choice (the local edge, this machine's edge), not "unsaid".
 * The program, `platform plan`, `platform deploy` and the settings a deploy writes all come here.
 */
export function resolveSettings(given: StackSettings, kept: StackSettings): ResolvedSettings {
  const either = <K extends keyof StackSettings>(k: K) => (given[k] !== undefined ? given[k] : kept[k]);
  const kubeconfig = either("kubeconfig") || undefined;
  const registry = either("registry") || undefined;
  return {
    appsDomain: either("appsDomain") || DEFAULT_APPS_DOMAIN,
    httpsPort: either("httpsPort") ?? DEFAULT_HTTPS_PORT,
    publicEdge: either("publicEdge") ?? null,
    frontDoor: either("frontDoor") ?? null,
    target: either("target") || "docker",
    ...(kubeconfig ? { kubeconfig } : {}),
    ...(registry ? { registry } : {}),
  };
}

/** A stack's settings read from its platform:* config values (unset or unreadable ones are not said). */
export function parseStackSettings(values: Readonly<Record<string, string | undefined>>): StackSettings {
  const at = (k: (typeof KEYS)[number]) => values[`platform:${k}`];
  const port = Number(at("httpsPort"));
  const publicEdge = parsePublicEdge(at("publicEdge"));
  const frontDoor = parseFrontDoor(at("frontDoor"));
  return {
    ...(at("appsDomain") ? { appsDomain: at("appsDomain") } : {}),
    ...(Number.isInteger(port) && port > 0 ? { httpsPort: port } : {}),
    ...(publicEdge !== undefined ? { publicEdge } : {}),
    ...(frontDoor !== undefined ? { frontDoor } : {}),
    ...(at("target") ? { target: at("target") } : {}),
    ...(at("kubeconfig") ? { kubeconfig: at("kubeconfig") } : {}),
    ...(at("registry") ? { registry: at("registry") } : {}),
  };
}

/** Resolved settings as the stack config values a deploy writes (read back by parseStackSettings). */
export function toStackConfig(r: ResolvedSettings): Record<string, string> {
  return {
    "platform:appsDomain": r.appsDomain,
    "platform:httpsPort": String(r.httpsPort),
    "platform:publicEdge": serializePublicEdge(r.publicEdge),
    "platform:frontDoor": serializeFrontDoor(r.frontDoor),
    "platform:target": r.target,
    "platform:kubeconfig": r.kubeconfig ?? "",
    "platform:registry": r.registry ?? "",
  };
}

/**
 * The one place that builds a plan's settings: the Pulumi program (from stack config), `platform
 * plan` and `platform deploy` (from what they were given over the stack's kept settings) all call
 * this, so a plan made by the CLI and the one the program deploys agree.
 */
export function buildPlanSettings(
  stack: { readonly project: string; readonly env: string; readonly projectDir: string },
  images: BaseImageSet,
  given: StackSettings,
  kept: StackSettings = {},
): PlanContext {
  const r = resolveSettings(given, kept);
  return {
    project: stack.project,
    env: stack.env,
    projectDir: stack.projectDir,
    appsDomain: r.appsDomain,
    httpsPort: r.httpsPort,
    ...(r.publicEdge ? { publicEdge: r.publicEdge } : {}),
    ...(r.frontDoor ? { frontDoor: r.frontDoor } : {}),
    images,
  };
}

/** The stack setting platform:publicEdge: JSON of the public edge, "" for the local edge. */
export function serializePublicEdge(edge: PublicEdge | null): string {
  return edge ? JSON.stringify(edge) : "";
}

/** Reads platform:publicEdge back: null for the local edge (or a value this version cannot read), undefined when unset. */
export function parsePublicEdge(text: string | undefined): PublicEdge | null | undefined {
  if (text === undefined) return undefined;
  if (text === "") return null;
  try {
    const v = JSON.parse(text) as PublicEdge;
    return typeof v?.httpPort === "number" && typeof v.acme?.ca === "string" && typeof v.acme.email === "string" ? v : null;
  } catch {
    return null;
  }
}

/** The stack setting platform:frontDoor: JSON of the cluster's front door, "" for the edge on this machine. */
export function serializeFrontDoor(door: FrontDoor | null): string {
  return door ? JSON.stringify(door) : "";
}

/** Reads platform:frontDoor back: null for the edge (or a value this version cannot read), undefined when unset. */
export function parseFrontDoor(text: string | undefined): FrontDoor | null | undefined {
  if (text === undefined) return undefined;
  if (text === "") return null;
  try {
    const v = JSON.parse(text) as FrontDoor;
    if (v?.kind !== "ingress") return null;
    const name = (x: unknown) => x === undefined || typeof x === "string";
    return name(v.className) && name(v.clusterIssuer) ? v : null;
  } catch {
    return null;
  }
}
