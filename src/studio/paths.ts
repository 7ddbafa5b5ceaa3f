import { join } from "node:path";
import { platformHome, telemetryDir } from "../settings.js";

/** Where Studio keeps its things: under the platform home (PLATFORM_STUDIO_DIR moves it, for tests). */
export function studioDir(): string {
  return process.env.PLATFORM_STUDIO_DIR || join(platformHome(), "studio");
}

/** The running Studio: pid, port, and the key the CLI uses to mint sign-in tokens (0600). */
export const stateFile = () => join(studioDir(), "studio.json");
export const logFile = () => join(studioDir(), "studio.log");
/** CPU and memory samples, kept by the sampler inside the Studio process. */
export const statsFile = () => join(studioDir(), "stats.sqlite");
/** The telemetry store the OTLP receiver writes (src/telemetry); PLATFORM_TELEMETRY_DIR moves it. */
export { telemetryDir };
/** Projects with a workspace (and a deployment history) under the platform home. */
export const projectsDir = () => join(platformHome(), "projects");
