/**
 * The diagnosis for a next/font/google family that no npm package carries, on the build logs of
 * Next.js 16.4 (Turbopack and webpack) after the platform's stand-in said so (wording as seen in
 * builds here, with a family the registry does not have).
 */
import { describe, expect, it } from "vitest";
import { diagnoseFontPackage, FONT_PACKAGE_MISSING } from "../../../../src/provider/docker/diagnose-fonts.js";

const STAND_IN = [
  "platform: next/font/google: Google Fonts cannot be reached from this build (ENOTFOUND): serving Geist, Geist Mono from npm (@fontsource-variable/geist-mono@5.3.0, @fontsource-variable/geist@5.3.0)",
  'platform: next/font/google: no npm package carries "Roboto Mono" (looked in @fontsource/roboto-mono and @fontsource-variable/roboto-mono), and Google Fonts cannot be reached from this build',
].join("\n");

const TURBOPACK = `${STAND_IN}
▲ Next.js 16.4.6 (Turbopack)
> Build error occurred
Error: Turbopack build failed with 1 error:
[next]/internal/font/google/roboto_mono_192acf8.js:1:1
Error: Module not found: Can't resolve '@vercel/turbopack-next/internal/font/google/cssmodule.module.css'
url not found

Debug info:
- Execution of NextFontGoogleCssModuleReplacer::import_map_result failed
- url not found
`;

const WEBPACK = `${STAND_IN}
▲ Next.js 16.4.6 (webpack)
Error [NextFontError]: Missing mocked response for URL: https://fonts.googleapis.com/css2?family=Roboto+Mono:wght@400;700&display=optional
Failed to compile.

app/layout.js
\`next/font\` error:
Failed to fetch \`Roboto Mono\` from Google Fonts.
`;

const diagnose = (log: string) => {
  const m = FONT_PACKAGE_MISSING.exec(log);
  return m ? diagnoseFontPackage(m) : undefined;
};

describe("a next/font/google family no npm package carries", () => {
  it.each([
    ["Turbopack", TURBOPACK],
    ["webpack", WEBPACK],
  ])("%s: one line that names the family and what to do", (_bundler, log) => {
    expect(diagnose(log)).toBe(
      'next/font/google cannot reach Google Fonts from this build, and no npm package carries "Roboto Mono" (the platform serves Google families from the @fontsource packages): use next/font/local with the font files in the repository, or a family that @fontsource publishes',
    );
  });

  it("names a weight the packages lack", () => {
    const log = WEBPACK.replace('carries "Roboto Mono" (', 'carries "Roboto Mono" 950 italic (');
    expect(diagnose(log)).toContain('no npm package carries "Roboto Mono" 950 italic (the platform');
  });

  it("is no diagnosis when the build failed for another reason (the call may be in a module the app does not build)", () => {
    expect(diagnose(`${STAND_IN}\nType error: Property 'x' does not exist on type '{}'.\n`)).toBeUndefined();
  });

  it("is no diagnosis when every family was served", () => {
    expect(diagnose(TURBOPACK.replace(/^.*no npm package carries.*$/m, ""))).toBeUndefined();
  });
});
