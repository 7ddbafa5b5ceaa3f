import { join } from "node:path";
import { homePaths } from "../home/layout.js";

/** The running Studio: pid, port, and the key the CLI uses to mint sign-in tokens (0600). */
export const stateFile = () => join(homePaths.studioDir(), "studio.json");
export const logFile = () => join(homePaths.studioDir(), "studio.log");
/** CPU and memory samples, kept by the sampler inside the Studio process. */
export const statsFile = () => join(homePaths.studioDir(), "stats.sqlite");
