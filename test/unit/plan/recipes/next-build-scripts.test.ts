/**
 * The platform's scripts in a Next.js build stage (images/node/next-google-fonts.cjs and
 * next-prune.cjs), run for real on their pure parts and on small trees of files: the
 * next/font/google calls found in source, the css2 URL read back, the family -> npm package
 * mapping, the CSS made from fontsource-shaped packages, the build command passed through
 * untouched, and the prune undone when next.config stops loading. The whole path (npm, Next.js,
 * webpack and Turbopack) is test/integration/next-offline.test.ts.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildNextjsRecipe } from "../../../../src/plan/recipes/index.js";
import { buildCheckedPrune, NEXT_FONTS_PATH, NEXT_PRUNE_PATH, wrapNextBuild } from "../../../../src/plan/recipes/next-build-scripts.js";
import { LOCAL, snapshot, stage } from "./snapshot.js";

type Tuple = Record<string, [number, number]>;
interface Pkg {
  dir: string;
}
interface Fonts {
  readLiteral(text: string, start: number): { value: unknown; end: number } | undefined;
  findFontCalls(text: string): Array<{ functionName: string; options: unknown }>;
  scanFontCalls(root: string): Array<{ functionName: string; options: unknown; file: string }>;
  parseCss2Url(url: string): { family: string; display?: string; tuples: Tuple[] };
  toPackageNames(family: string): { id: string; static: string; variable: string };
  readPackage(dir: string): Pkg | undefined;
  buildCss(url: string, pkgs: { static?: Pkg; variable?: Pkg }): { css?: string; missing?: string };
  main(argv: string[], deps: { probe: (url: string) => Promise<string | undefined>; cwd: string }): Promise<number>;
}

const require = createRequire(import.meta.url);
const FONTS_SCRIPT = require.resolve("../../../../images/node/next-google-fonts.cjs");
const PRUNE_SCRIPT = require.resolve("../../../../images/node/next-prune.cjs");
const fonts = require(FONTS_SCRIPT) as Fonts;
const work = mkdtempSync(join(tmpdir(), "platform-next-scripts-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function writeTree(root: string, files: Record<string, string>): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe("next/font/google calls in source", () => {
  it("reads literals as Next.js accepts them (comments, quotes, trailing commas, `as const`), and nothing else", () => {
    const text = `X({
      // the variable
      variable: '--font-x', subsets: ["latin", \`latin-ext\`,], weight: ["400", "700"] as const,
      /* no preload */ preload: false, "display": "swap", axes: ['opsz'], n: -1.5, z: null,
    })`;
    expect(fonts.readLiteral(text, 2)?.value).toEqual({
      variable: "--font-x",
      subsets: ["latin", "latin-ext"],
      weight: ["400", "700"],
      preload: false,
      display: "swap",
      axes: ["opsz"],
      n: -1.5,
      z: null,
    });
    expect(fonts.readLiteral("{ weight: w }", 0)).toBeUndefined();
    expect(fonts.readLiteral("{ weight: `${w}` }", 0)).toBeUndefined();
    expect(fonts.readLiteral("{ ...base }", 0)).toBeUndefined();
    expect(fonts.readLiteral("'it\\'s \\u0041'", 0)?.value).toBe("it's A");
  });

  it("finds create-next-app's layout, aliases, several families, and skips what is not a literal call", () => {
    const layout = `import type { Metadata } from "next";
import { Geist, Geist_Mono } from "next/font/google";
import "./globals.css";

const geistSans = Geist({
  variable: "--font-geist-sans",
  subsets: ["latin"],
});

const geistMono = Geist_Mono({
  variable: "--font-geist-mono",
  subsets: ["latin"],
});
`;
    expect(fonts.findFontCalls(layout)).toEqual([
      { functionName: "Geist", options: { variable: "--font-geist-sans", subsets: ["latin"] } },
      { functionName: "Geist_Mono", options: { variable: "--font-geist-mono", subsets: ["latin"] } },
    ]);
    const other = `import { Inter as FontSans, type NextFontWithVariable, Roboto_Mono } from '@next/font/google'
import { Inter } from "./not-google";
export const sans = FontSans({ subsets: ['latin'], variable: '--font-sans' });
const mono = Roboto_Mono({ weight: [ '400', '700' ], style: 'italic', subsets: ['latin'] })
const dynamic = Roboto_Mono(options);
const none = Roboto_Mono();
const notTheLoader = Inter({ subsets: ["latin"] });`;
    expect(fonts.findFontCalls(other)).toEqual([
      { functionName: "Inter", options: { subsets: ["latin"], variable: "--font-sans" } },
      { functionName: "Roboto_Mono", options: { weight: ["400", "700"], style: "italic", subsets: ["latin"] } },
      { functionName: "Roboto_Mono", options: undefined },
    ]);
    expect(fonts.findFontCalls('import { Inter } from "next/font/local"; Inter({})')).toEqual([]);
  });

  it("scans a tree deeper than the plan's snapshot, skipping node_modules and build output", () => {
    const root = writeTree(join(work, "scan"), {
      "src/app/[locale]/(marketing)/layout.tsx": 'import { Inter } from "next/font/google";\nconst i = Inter({ subsets: ["latin"] });',
      "node_modules/lib/index.js": 'import { Lato } from "next/font/google"; Lato({ weight: "400" });',
      ".next/server/app.js": 'import { Lato } from "next/font/google"; Lato({ weight: "400" });',
      "README.md": 'import { Lato } from "next/font/google"; Lato({ weight: "400" });',
    });
    expect(fonts.scanFontCalls(root).map((c) => [c.functionName, c.file.slice(root.length)])).toEqual([
      ["Inter", "/src/app/[locale]/(marketing)/layout.tsx"],
    ]);
  });
});

describe("Google's css2 URL and the npm packages", () => {
  it.each([
    [
      "https://fonts.googleapis.com/css2?family=Geist:wght@100..900&display=swap",
      { family: "Geist", display: "swap", tuples: [{ wght: [100, 900] }] },
    ],
    [
      "https://fonts.googleapis.com/css2?family=Roboto+Mono:ital,wght@0,400;0,700;1,400&display=optional",
      {
        family: "Roboto Mono",
        display: "optional",
        tuples: [
          { ital: [0, 0], wght: [400, 400] },
          { ital: [0, 0], wght: [700, 700] },
          { ital: [1, 1], wght: [400, 400] },
        ],
      },
    ],
    [
      "https://fonts.googleapis.com/css2?family=Inter:opsz,wght@14..32,100..900&display=swap",
      { family: "Inter", display: "swap", tuples: [{ opsz: [14, 32], wght: [100, 900] }] },
    ],
  ])("%s", (url, parsed) => {
    expect(fonts.parseCss2Url(url)).toEqual(parsed);
  });

  it.each([
    ["Geist", "@fontsource/geist", "@fontsource-variable/geist"],
    ["Geist Mono", "@fontsource/geist-mono", "@fontsource-variable/geist-mono"],
    ["Roboto Mono", "@fontsource/roboto-mono", "@fontsource-variable/roboto-mono"],
    ["Inter", "@fontsource/inter", "@fontsource-variable/inter"],
    ["Noto Sans JP", "@fontsource/noto-sans-jp", "@fontsource-variable/noto-sans-jp"],
    ["M PLUS 1p", "@fontsource/m-plus-1p", "@fontsource-variable/m-plus-1p"],
  ])("%s -> %s, %s", (family, staticName, variableName) => {
    const names = fonts.toPackageNames(family);
    expect([names.static, names.variable]).toEqual([staticName, variableName]);
  });
});

describe("CSS made from the packages (fontsource's layout: metadata.json, unicode.json, files/)", () => {
  const LATIN = "U+0000-00FF,U+0131";
  const CYRILLIC = "U+0400-045F";
  function fakePackage(name: string, meta: object, unicode: Record<string, string>, files: string[]): Pkg {
    const dir = join(work, "packages", name, "package");
    writeTree(dir, {
      "metadata.json": JSON.stringify(meta),
      "unicode.json": JSON.stringify(unicode),
      ...Object.fromEntries(files.map((f) => [`files/${f}`, "wOF2"])),
    });
    return fonts.readPackage(dir) as Pkg;
  }
  const geistVariable = fakePackage(
    "geist-variable",
    { id: "geist", family: "Geist", weights: [100, 900], variable: { wght: { min: "100", max: "900" } } },
    { cyrillic: CYRILLIC, latin: LATIN },
    ["geist-cyrillic-wght-normal.woff2", "geist-latin-wght-normal.woff2"],
  );
  const monoStatic = fakePackage(
    "roboto-mono-static",
    { id: "roboto-mono", family: "Roboto Mono", weights: [400, 700] },
    { latin: LATIN },
    ["roboto-mono-latin-400-normal.woff2", "roboto-mono-latin-700-normal.woff2", "roboto-mono-latin-400-italic.woff2"],
  );

  it("a variable family: one face per subset with the weight range, the subset in a comment above it as Google writes it", () => {
    const r = fonts.buildCss("https://fonts.googleapis.com/css2?family=Geist:wght@100..900&display=swap", { variable: geistVariable });
    expect(r.css).toBe(
      [
        "/* cyrillic */",
        "@font-face {",
        "  font-family: 'Geist';",
        "  font-style: normal;",
        "  font-weight: 100 900;",
        "  font-display: swap;",
        `  src: url(${geistVariable.dir}/files/geist-cyrillic-wght-normal.woff2) format('woff2');`,
        `  unicode-range: ${CYRILLIC};`,
        "}",
        "/* latin */",
        "@font-face {",
        "  font-family: 'Geist';",
        "  font-style: normal;",
        "  font-weight: 100 900;",
        "  font-display: swap;",
        `  src: url(${geistVariable.dir}/files/geist-latin-wght-normal.woff2) format('woff2');`,
        "  unicode-range: U+0000-00FF, U+0131;",
        "}",
        "",
      ].join("\n"),
    );
  });

  it("fixed weights and styles come from the static files; a weight only the variable file has comes from it", () => {
    const url = "https://fonts.googleapis.com/css2?family=Roboto+Mono:ital,wght@0,400;0,700;1,400&display=optional";
    const css = fonts.buildCss(url, { static: monoStatic }).css ?? "";
    expect(css.match(/font-(?:style|weight): [^;]+;/g)).toEqual([
      "font-style: normal;",
      "font-weight: 400;",
      "font-style: normal;",
      "font-weight: 700;",
      "font-style: italic;",
      "font-weight: 400;",
    ]);
    expect(css).toContain("roboto-mono-latin-400-italic.woff2");
    const geist500 = fonts.buildCss("https://fonts.googleapis.com/css2?family=Geist:wght@500&display=swap", { variable: geistVariable });
    expect(geist500.css).toContain("font-weight: 500;");
    expect(geist500.css).toContain("geist-latin-wght-normal.woff2");
  });

  it("a range only static files carry: each of their weights in it", () => {
    const css = fonts.buildCss("https://fonts.googleapis.com/css2?family=Roboto+Mono:wght@300..700&display=swap", {
      static: monoStatic,
    }).css;
    expect(css?.match(/font-weight: [^;]+;/g)).toEqual(["font-weight: 400;", "font-weight: 700;"]);
  });

  it("names what no package carries: the family, or the weight", () => {
    expect(fonts.buildCss("https://fonts.googleapis.com/css2?family=Foo+Bar:wght@400&display=swap", {})).toEqual({ missing: '"Foo Bar"' });
    expect(
      fonts.buildCss("https://fonts.googleapis.com/css2?family=Roboto+Mono:ital,wght@1,700&display=swap", { static: monoStatic }),
    ).toEqual({ missing: '"Roboto Mono" 700 italic' });
  });

  it("CJK slices ([0], [1]...) keep Google's comment and fontsource's file names", () => {
    const jp = fakePackage(
      "noto-sans-jp",
      { id: "noto-sans-jp", family: "Noto Sans JP", weights: [100, 900], variable: { wght: { min: "100", max: "900" } } },
      { "[0]": "U+25EE8", "[1]": "U+4E00" },
      ["noto-sans-jp-0-wght-normal.woff2", "noto-sans-jp-1-wght-normal.woff2"],
    );
    const css = fonts.buildCss("https://fonts.googleapis.com/css2?family=Noto+Sans+JP:wght@100..900&display=swap", { variable: jp }).css;
    expect(css).toContain("/* [1] */");
    expect(css).toContain("noto-sans-jp-1-wght-normal.woff2");
  });
});

describe("the build command through the fonts script", () => {
  const run = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [FONTS_SCRIPT, ...args], { encoding: "utf8", env: { ...process.env, ...env } });
  const printEnv = ["-e", "console.log(process.env.NEXT_FONT_GOOGLE_MOCKED_RESPONSES ?? 'unset'); process.exit(7)"];

  it("with no next/font/google call, runs the command as it is: same environment, same exit code, no line of its own", () => {
    const root = writeTree(join(work, "no-fonts"), { "app/page.js": "export default () => null;" });
    const r = run([root, process.execPath, ...printEnv]);
    expect(r.status).toBe(7);
    expect(r.stdout).toBe("unset\n");
  });

  it("Google Fonts answers: the command runs as it is, after one request for the URL the app's own Next.js made", async () => {
    // A stand-in for Next.js's compiled font modules: the URL says which call it came from.
    const google = "node_modules/next/dist/compiled/@next/font/dist/google";
    const cwd = writeTree(join(work, "online"), {
      "package.json": "{}",
      "app/layout.js": 'import { Geist } from "next/font/google";\nconst g = Geist({ subsets: ["latin"] });',
      "node_modules/next/package.json": JSON.stringify({ name: "next", version: "16.4.6" }),
      [`${google}/validate-google-font-function-call.js`]:
        "exports.validateGoogleFontFunctionCall = (name, o) => ({ fontFamily: name.replace(/_/g, ' '), weights: ['variable'], styles: ['normal'], display: 'swap', subsets: o.subsets });",
      [`${google}/get-font-axes.js`]: "exports.getFontAxes = () => ({ wght: ['100..900'] });",
      [`${google}/get-google-fonts-url.js`]:
        "exports.getGoogleFontsUrl = (f, a, d) => `https://fonts.googleapis.com/css2?family=${f.replace(/ /g, '+')}:wght@${a.wght[0]}&display=${d}`;",
    });
    const asked: string[] = [];
    const out = join(cwd, "env.txt");
    const code = await fonts.main(
      [
        cwd,
        process.execPath,
        "-e",
        `require("fs").writeFileSync(${JSON.stringify(out)}, String(process.env.NEXT_FONT_GOOGLE_MOCKED_RESPONSES)); process.exit(5)`,
      ],
      {
        probe: async (url) => {
          asked.push(url);
          return undefined;
        },
        cwd,
      },
    );
    expect(asked).toEqual(["https://fonts.googleapis.com/css2?family=Geist:wght@100..900&display=swap"]);
    expect([code, readFileSync(out, "utf8")]).toEqual([5, "undefined"]);
  });

  it("an app that sets Next.js's hook itself keeps it", () => {
    const root = writeTree(join(work, "own-hook"), {
      "app/layout.js": 'import { Inter } from "next/font/google"; Inter({ subsets: ["latin"] });',
    });
    const r = run([root, process.execPath, ...printEnv], { NEXT_FONT_GOOGLE_MOCKED_RESPONSES: "/app/own-mocks.js" });
    expect([r.status, r.stdout]).toEqual([7, "/app/own-mocks.js\n"]);
  });

  it("says how it is used", () => {
    expect(run([]).status).toBe(2);
  });

  it("the recipe writes both scripts after the install and runs next build and the prune through them", () => {
    const recipe = buildNextjsRecipe(
      snapshot({
        "package.json": JSON.stringify({ scripts: { build: "next build" }, dependencies: { next: "16.4.6" } }),
        "package-lock.json": null,
      }),
      LOCAL,
    );
    const build = stage(recipe.dockerfile, 0);
    const scripts = build.findIndex((l) => l.includes(`> ${NEXT_FONTS_PATH} && printf`));
    expect(build[scripts - 1]).toMatch(/npm ci --no-audit --no-fund'$/);
    expect(build[scripts]).toMatch(new RegExp(`> ${NEXT_PRUNE_PATH}$`));
    expect(build[scripts + 1]).toBe("COPY . .");
    expect(build.find((l) => l.includes("run build"))).toMatch(/; node \/opt\/platform\/next-google-fonts\.cjs \/app npm run build'$/);
    expect(build.at(-1)).toContain(
      "; node /opt/platform/next-prune.cjs '\\''npm prune --omit=dev --no-audit --no-fund'\\'' '\\''npm ci --no-audit --no-fund'\\'' && rm -rf .next/cache'",
    );
  });

  it("sets the command's leading variable assignments for it, as sh would", () => {
    expect(wrapNextBuild("YARN_NODE_LINKER=node-modules yarn run build")).toBe(
      `node ${NEXT_FONTS_PATH} /app YARN_NODE_LINKER=node-modules yarn run build`,
    );
    const root = writeTree(join(work, "assignments"), { "app/page.js": "export default () => null;" });
    const r = run([root, "A=1", "B=x=y", process.execPath, "-e", "console.log(process.env.A, process.env.B)"]);
    expect([r.status, r.stdout]).toEqual([0, "1 x=y\n"]);
  });

  it("quotes the prune's commands for sh", () => {
    const prune = buildCheckedPrune(`rm -rf node_modules && echo 'x'`, '[ "$(a)" = "1" ] || b');
    const argv = spawnSync("sh", ["-c", `${prune.replace(`node ${NEXT_PRUNE_PATH}`, "printf '%s\\n'")}`], { encoding: "utf8" }).stdout;
    expect(argv).toBe(`rm -rf node_modules && echo 'x'\n[ "$(a)" = "1" ] || b\n`);
  });
});

describe("the prune, undone when next.config no longer loads", () => {
  /** A tree with a stand-in for Next.js's config loader (it imports next.config.mjs) and a dev dependency. */
  function app(name: string, config: string): string {
    return writeTree(join(work, name), {
      "package.json": JSON.stringify({ name, type: "commonjs" }),
      "next.config.mjs": config,
      "node_modules/next/constants.js": "exports.PHASE_PRODUCTION_SERVER = 'phase-production-server';",
      "node_modules/next/dist/server/config.js":
        "exports.default = async (phase, dir) => (await import(require('node:path').join(dir, 'next.config.mjs'))).default;",
      "node_modules/dev-plugin/package.json": JSON.stringify({ name: "dev-plugin", main: "index.js" }),
      "node_modules/dev-plugin/index.js": "module.exports = (c) => c;",
    });
  }
  const PRUNE = "rm -rf node_modules/dev-plugin";
  const INSTALL =
    "mkdir -p node_modules/dev-plugin && echo 'module.exports = (c) => c;' > node_modules/dev-plugin/index.js && echo reinstalled";
  const prune = (cwd: string) => spawnSync(process.execPath, [PRUNE_SCRIPT, PRUNE, INSTALL], { cwd, encoding: "utf8" });

  it("a config that imports a dev dependency: the install runs again, and the log says why", () => {
    const cwd = app("needs-dev", 'import plugin from "dev-plugin";\nexport default plugin({ poweredByHeader: false });\n');
    const r = prune(cwd);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^platform: next start: next\.config\.mjs does not load without dev dependencies \(Cannot find package 'dev-plugin' imported from .*next\.config\.mjs\): they stay in the image \(move what it imports to dependencies for a smaller image\)\nreinstalled\n$/,
    );
    expect(existsSync(join(cwd, "node_modules/dev-plugin/index.js"))).toBe(true);
  });

  it("a config that does not: the prune stands, silently", () => {
    const cwd = app("no-dev", "export default { poweredByHeader: false };\n");
    const r = prune(cwd);
    expect([r.status, r.stdout]).toEqual([0, ""]);
    expect(existsSync(join(cwd, "node_modules/dev-plugin"))).toBe(false);
  });

  it("a config that does not load even before (a variable only the service has): the prune stands", () => {
    const cwd = app(
      "broken",
      'import plugin from "dev-plugin";\nif (!process.env.ONLY_AT_RUN_TIME) throw new Error("no");\nexport default plugin({});\n',
    );
    const r = prune(cwd);
    expect([r.status, r.stdout]).toEqual([0, ""]);
    expect(existsSync(join(cwd, "node_modules/dev-plugin"))).toBe(false);
  });

  it("a failed prune fails the step", () => {
    const cwd = app("prune-fails", "export default {};\n");
    expect(spawnSync(process.execPath, [PRUNE_SCRIPT, "exit 3", INSTALL], { cwd }).status).toBe(3);
  });
});
