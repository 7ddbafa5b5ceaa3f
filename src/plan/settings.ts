import { DEFAULT_APPS_DOMAIN, DEFAULT_HTTPS_PORT } from "./constants.js";
import type { BaseImageSet, PlanContext } from "./types.js";

/** The edge settings a plan depends on, as one source gives them (any may be unset). */
export interface EdgeSettings {
  readonly appsDomain?: string;
  readonly httpsPort?: number;
}

/** Where a plan's settings come from, in the order they win over each other, then the defaults. */
export interface SettingsSources {
  /** --apps-domain / --https-port, else their PLATFORM_* variables (already checked by the CLI). */
  readonly flags?: EdgeSettings;
  /** What the stack keeps (platform:appsDomain, platform:httpsPort): the last deploy's flags. */
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
  return {
    project: stack.project,
    env: stack.env,
    projectDir: stack.projectDir,
    appsDomain: sources.flags?.appsDomain ?? sources.stack?.appsDomain ?? DEFAULT_APPS_DOMAIN,
    httpsPort: sources.flags?.httpsPort ?? sources.stack?.httpsPort ?? DEFAULT_HTTPS_PORT,
    images,
  };
}
