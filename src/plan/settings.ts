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

/** Where a plan's settings come from, in the order they win over each other, then the defaults. */
export interface SettingsSources {
  /** --apps-domain / --https-port, else their PLATFORM_* variables (already checked by the CLI). */
  readonly flags?: EdgeSettings;
  /** What the stack keeps (platform:appsDomain, platform:httpsPort, platform:publicEdge): the last deploy's settings. */
  readonly stack?: EdgeSettings;
}

/**
 * The one place that builds a plan's settings: the Pulumi program (from stack config), `platform
 * plan` and `platform deploy` (from flags over the stack's kept settings) all call this, so a
 * plan made by the CLI and the one the program deploys agree.
 */
export function buildPlanSettings(
  stack: { readonly project: string; readonly env: string; readonly projectDir: string },
  images: BaseImageSet,
  sources: SettingsSources,
): PlanContext {
  const publicEdge = sources.flags?.publicEdge !== undefined ? sources.flags.publicEdge : sources.stack?.publicEdge;
  const frontDoor = sources.flags?.frontDoor !== undefined ? sources.flags.frontDoor : sources.stack?.frontDoor;
  return {
    project: stack.project,
    env: stack.env,
    projectDir: stack.projectDir,
    appsDomain: sources.flags?.appsDomain ?? sources.stack?.appsDomain ?? DEFAULT_APPS_DOMAIN,
    httpsPort: sources.flags?.httpsPort ?? sources.stack?.httpsPort ?? DEFAULT_HTTPS_PORT,
    ...(publicEdge ? { publicEdge } : {}),
    ...(frontDoor ? { frontDoor } : {}),
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
