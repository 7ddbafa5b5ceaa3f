/**
 * next/font/google without the internet: the platform serves Google families from npm font
 * packages (images/node/next-google-fonts.cjs). A family no package carries is named in its line
 * `platform: next/font/google: no npm package carries "Foo Bar" (looked in ...)`; when Next.js
 * then fails on a font (webpack: "Missing mocked response for URL", Turbopack: "url not found",
 * both: "... from Google Fonts"), the diagnosis names that family. The line alone is no
 * diagnosis: the call may sit in a module the app never builds (another app of a workspace).
 */
export const FONT_PACKAGE_MISSING =
  /platform: next\/font\/google: no npm package carries ([^\n]*?) \(looked in[^\n]*\n[\s\S]*(?:Missing mocked response for URL|url not found|from Google Fonts)/;

export function diagnoseFontPackage(m: RegExpExecArray): string {
  return (
    `next/font/google cannot reach Google Fonts from this build, and no npm package carries ${m[1]} ` +
    "(the platform serves Google families from the @fontsource packages): use next/font/local with the font files in the repository, or a family that @fontsource publishes"
  );
}
