/**
 * The platform's two scripts in a Next.js build stage (images/node/):
 *   - next-google-fonts.cjs runs next build. When the app calls next/font/google and Google
 *     Fonts cannot be reached, it serves the families asked for from the npm font packages
 *     (@fontsource/<family>, @fontsource-variable/<family>) through Next.js's own hook,
 *     NEXT_FONT_GOOGLE_MOCKED_RESPONSES, for webpack and Turbopack builds alike; a family no
 *     package carries is named in one line of the build log. With Google Fonts reachable, or no
 *     call found, the build runs exactly as it did.
 *   - next-prune.cjs drops dev dependencies after the build, then loads next.config as
 *     `next start` does: when it no longer loads (it imports a dev dependency), the full install
 *     runs again, so the server never crashes at start on a package the build had.
 * Both are written in one step after the install and before the app's files: a code change
 * reuses the step, and a new platform release re-runs only what follows the install.
 */
import { writeLines } from "./dockerfile-parts.js";
import { readImageScript } from "./node-drain.js";

const DIR = "/opt/platform";
export const NEXT_FONTS_PATH = `${DIR}/next-google-fonts.cjs`;
export const NEXT_PRUNE_PATH = `${DIR}/next-prune.cjs`;
const FONTS_SOURCE = new URL("../../../images/node/next-google-fonts.cjs", import.meta.url);
const PRUNE_SOURCE = new URL("../../../images/node/next-prune.cjs", import.meta.url);

let step: string | undefined;

/** Build-stage step that writes both scripts. */
export function buildNextScriptsStep(): string {
  step ??= `RUN mkdir -p ${DIR} && ${writeLines(
    NEXT_FONTS_PATH,
    readImageScript(
      FONTS_SOURCE,
      "next/font/google without the internet (generated from the platform's images/node/next-google-fonts.cjs).",
    ),
  )} && ${writeLines(
    NEXT_PRUNE_PATH,
    readImageScript(
      PRUNE_SOURCE,
      "Dev dependencies pruned unless next start needs them (generated from the platform's images/node/next-prune.cjs).",
    ),
  )}`;
  return step;
}

/**
 * The build command run through the fonts script, which looks for next/font/google calls under
 * `root` (the build context). Leading variable assignments (YARN_NODE_LINKER=...) are the
 * script's to set for the command.
 */
export function wrapNextBuild(command: string, root = "/app"): string {
  return `node ${NEXT_FONTS_PATH} ${root} ${command}`;
}

const quote = (command: string) => `'${command.replace(/'/g, `'\\''`)}'`;

/** The prune, checked against next.config, with the install to run again when the config needs what it removed. */
export function buildCheckedPrune(prune: string, install: string): string {
  return `node ${NEXT_PRUNE_PATH} ${quote(prune)} ${quote(install)}`;
}
