import { describe, expect, it } from "vitest";
import { diagnoseBuildLog } from "../../../../src/provider/docker/build-diagnoses.js";

/**
 * Each log is the tool's own wording, as it came out of builds here (BuildKit's "#N t" prefix
 * kept where a build printed it): Next.js 16.4 and 15.5, npm 10.9, pnpm 7.33/8.15/9.15/10.34,
 * yarn 1.22, 3.8 and 4.18, pip 23, uv 0.13.9, prisma 5.22/6.19/7.10, sharp 0.32, better-sqlite3 9.
 */
const cases: Array<[string, string, RegExp | string]> = [
  ["next/font/google offline", "#12 8.1 Failed to fetch `Inter` from Google Fonts.\n#12 8.1 Error: ...", /next\/font\/local/],

  // Next.js 16.4.6 (Turbopack), test/fixtures/apps/prerender-fetch built with the recipe.
  [
    "prerender fetch failed (Next 16, an external host)",
    [
      "#14 12.56   Generating static pages using 1 worker (0/3) ...",
      '#14 12.95 Error occurred prerendering page "/". Read more: https://nextjs.org/docs/messages/prerender-error',
      "#14 12.96 TypeError: fetch failed",
      "#14 12.96     at async c (app/page.js:5:15)",
      "#14 12.96   digest: '2559599818',",
      "#14 12.96   [cause]: Error: getaddrinfo ENOTFOUND api.example.invalid",
      "#14 12.97 Export encountered an error on /page: /, exiting the build.",
    ].join("\n"),
    'next build prerenders /, and a fetch there failed (api.example.invalid): render the page at request time (export const dynamic = "force-dynamic" in its page or layout), or make what it fetches reachable from the build',
  ],
  [
    // Next.js 15.5.29, the same page at /isr fetching http://api:8000/stats.
    "prerender fetch failed (Next 15, another service of the stack)",
    [
      '#14 38.77 Error occurred prerendering page "/isr". Read more: https://nextjs.org/docs/messages/prerender-error',
      "#14 38.77 TypeError: fetch failed",
      "#14 38.77     at async f (.next/server/app/isr/page.js:1:882) {",
      "#14 38.77   digest: '2267215542',",
      "#14 38.77   [cause]: [Error: getaddrinfo ENOTFOUND api] {",
      "#14 38.77     errno: -3008,",
    ].join("\n"),
    /prerenders \/isr, and a fetch there failed \(api, a service\? builds run outside the stack's network\)/,
  ],

  // Next.js 15.4 canary, a page whose data comes from the Stripe SDK (seen deploying nextjs/saas-starter's /pricing).
  [
    "prerender request failed inside an SDK (Stripe's connection error, the host 9 lines below)",
    [
      '#19 64.76 Error occurred prerendering page "/pricing". Read more: https://nextjs.org/docs/messages/prerender-error',
      "#19 64.76 Error: An error occurred with our connection to Stripe. Request was retried 2 times.",
      "#19 64.76     at <unknown> (.next/server/chunks/421.js:1:58489) {",
      "#19 64.76   type: 'StripeConnectionError',",
      "#19 64.76   raw: [Object],",
      "#19 64.76   rawType: undefined,",
      "#19 64.76   code: undefined,",
      "#19 64.76   doc_url: undefined,",
      "#19 64.76   param: undefined,",
      "#19 64.76   detail: [Error: getaddrinfo ENOTFOUND api.stripe.com] {",
      "#19 64.76     errno: -3008,",
    ].join("\n"),
    'next build prerenders /pricing, and a request there failed (api.stripe.com): render the page at request time (export const dynamic = "force-dynamic" in its page or layout), or make what it fetches reachable from the build',
  ],
  // BuildKit (Docker 20.10) when the engine's disk filled during a deploy of vercel/nextjs-postgres-auth-starter.
  [
    "the engine's disk is full",
    [
      "#21 [stage-2 7/7] COPY --from=build --chown=app:app /app ./",
      "#21 ERROR: failed to copy files: copy file range failed: no space left on device",
    ].join("\n"),
    /^the Docker engine's disk is full .*docker builder prune/,
  ],
  // npm 10 + npm-run-all's run-s, drizzle-kit 0.31 (seen deploying ixartz/Next-js-Boilerplate: "build": "run-s db:migrate build:next").
  [
    "a migration in the build script (drizzle-kit, silent)",
    [
      "#19 0.364 > run-s db:migrate build:next",
      "#19 0.622 > db:migrate",
      "#19 0.622 > dotenv -c -- drizzle-kit migrate",
      "#19 0.917 No config path provided, using default 'drizzle.config.ts'",
      "#19 1.375 Using 'pg' driver for database querying",
      '#19 1.603 [⣷] applying migrations...ERROR: "db:migrate" exited with 1.',
    ].join("\n"),
    "the build script runs a database migration (drizzle-kit migrate), and builds run outside the stack's network, where its database cannot be reached: run it as the service's lifecycle.migrate in platform.yml (after the build, on the stack's network) and take it out of package.json's build script",
  ],
  [
    "a migration in the build script (prisma migrate deploy, npm's error)",
    [
      "#14 0.52 > prisma migrate deploy && next build",
      '#14 1.10 Datasource "db": PostgreSQL database "app", schema "public" at "db:5432"',
      "#14 1.31 Error: P1001: Can't reach database server at `db:5432`",
      "#14 1.40 npm error Lifecycle script `build` failed with error:",
    ].join("\n"),
    /^the build script runs a database migration \(prisma migrate deploy\)/,
  ],
  // prisma generate on node 22 without binaries.prisma.sh (6.19.0; 5.22.0 and 7.10.1 say the same).
  [
    "prisma engines",
    "#15 3.1 Error: request to https://binaries.prisma.sh/all_commits/2ba551f319ab1df4bc874a89965d8b3641056773/debian-openssl-1.1.x/schema-engine.gz.sha256 failed, reason: getaddrinfo ENOTFOUND binaries.prisma.sh",
    /^Prisma downloads its Rust engines from binaries\.prisma\.sh .*engineType = "client".*PRISMA_ENGINES_MIRROR/,
  ],
  [
    "sharp 0.32 libvips from GitHub",
    [
      "npm error path /w/node_modules/sharp",
      "npm error command failed",
      "npm error command sh -c (node install/libvips && node install/dll-copy && prebuild-install) || (node install/can-compile && node-gyp rebuild && node install/dll-copy)",
      "npm error sharp: Downloading https://github.com/lovell/sharp-libvips/releases/download/v8.14.5/libvips-8.14.5-linux-x64.tar.br",
      "npm error sharp: Installation error: getaddrinfo ENOTFOUND github.com",
    ].join("\n"),
    /^sharp before 0\.33 downloads libvips .*upgrade to sharp 0\.33/,
  ],
  // Seen deploying vercel/next-learn dashboard/final-example (bcrypt 5 through node-pre-gyp).
  [
    "node-pre-gyp offline",
    "#11 82.17 .../bcrypt@5.1.1/node_modules/bcrypt install: node-pre-gyp WARN Pre-built binaries not installable for bcrypt@5.1.1 and node@22.23.3",
    /bcryptjs/,
  ],
  [
    "prebuild-install offline, then node-gyp without Python (better-sqlite3 9.6)",
    [
      "npm error path /w/node_modules/better-sqlite3",
      "npm error command failed",
      "npm error command sh -c prebuild-install || node-gyp rebuild --release",
      "npm error prebuild-install warn install getaddrinfo ENOTFOUND github.com",
      "npm error gyp ERR! find Python Python is not set from command line or npm configuration",
    ].join("\n"),
    /Python and a C compiler/,
  ],
  ["node-gyp without make", "#9 gyp ERR! stack Error: not found: make", /node-gyp and the image has no make or C compiler/],
  [
    "node-gyp without g++",
    "#9 make: g++: No such file or directory\n#9 gyp ERR! build error",
    /apt-get install -y --no-install-recommends python3 build-essential/,
  ],

  // A dependency whose postinstall downloads (node install.js with https.get), per package manager.
  [
    "postinstall download (npm 10)",
    [
      "npm error code 1",
      "npm error path /app/node_modules/fetchy",
      "npm error command failed",
      "npm error command sh -c node install.js",
      "npm error fetchy: download failed: getaddrinfo ENOTFOUND downloads.example-vendor.com",
    ].join("\n"),
    "the install script of fetchy downloads from downloads.example-vendor.com, outside the npm registry, which this build cannot reach: use a version (or an alternative) that ships its files in the npm package, set the package's mirror variable if it has one, or let the build reach downloads.example-vendor.com",
  ],
  [
    "postinstall download (yarn 1)",
    [
      "error /w3/node_modules/@vendor/fetchy: Command failed.",
      "Exit code: 1",
      "Command: node install.js",
      "Output:",
      "fetchy: download failed: getaddrinfo ENOTFOUND downloads.example-vendor.com",
    ].join("\n"),
    /^the install script of @vendor\/fetchy downloads from downloads\.example-vendor\.com/,
  ],
  [
    "postinstall download (pnpm 8)",
    [
      ".../node_modules/fetchy postinstall$ node install.js",
      ".../node_modules/fetchy postinstall: fetchy: download failed: getaddrinfo ENOTFOUND downloads.example-vendor.com",
      ".../node_modules/fetchy postinstall: Failed",
      " ELIFECYCLE  Command failed with exit code 1.",
    ].join("\n"),
    /^the install script of fetchy downloads from downloads\.example-vendor\.com/,
  ],
  [
    "postinstall download (yarn berry keeps the output in a file)",
    "➤ YN0009: │ fetchy@file:/tmp/lf/pkgf/fetchy-1.0.0.tgz::locator=w3%40workspace%3A. couldn't be built successfully (exit code 1, logs can be found here: /tmp/xfs-2675676b/build.log)",
    /^the install script of fetchy failed \(yarn keeps its output in a file inside the build\)/,
  ],
  [
    "postinstall with curl, which the image lacks",
    [
      "npm error code 127",
      "npm error path /w/node_modules/curly",
      "npm error command failed",
      "npm error command sh -c curl -fsSL https://downloads.example-vendor.com/tool -o tool",
      "npm error sh: 1: curl: not found",
    ].join("\n"),
    /^the install script of curly runs curl, which the image lacks/,
  ],

  // Python packages built from source on platform-local/python:3.11 (pip 23, uv 0.13.9).
  ["gcc missing (setuptools)", "#9 21.0   error: command 'gcc' failed: No such file or directory", /a C compiler.*build-essential/],
  ["gcc missing (x86_64 prefix)", "#9 21.0 error: command '/usr/bin/x86_64-linux-gnu-gcc' failed with exit code 1", /C compiler/],
  ["gcc missing (shell)", "#9 3.0 /bin/sh: 1: gcc: not found", /C compiler/],
  [
    "psutil from source (pip)",
    "Collecting psutil==7.0.0\n      psutil could not be installed from sources because gcc is not installed. Try running:\n      error: [Errno 2] No such file or directory: 'x86_64-linux-gnu-gcc'\n  ERROR: Failed building wheel for psutil",
    "a Python package (psutil) is compiled from source and the image lacks a C compiler: pin a version that ships a prebuilt wheel for this Python, or give the service a build Dockerfile (FROM ${PLATFORM_PYTHON_IMAGE}) that runs apt-get install -y --no-install-recommends build-essential before installing the requirements",
  ],
  [
    "psutil from source (uv)",
    "   Building psutil==7.0.0\nerror: Failed to build `psutil==7.0.0`\n  cause: The build backend returned an error\n         error: [Errno 2] No such file or directory: 'x86_64-linux-gnu-gcc'",
    /^a Python package \(psutil\) is compiled from source and the image lacks a C compiler/,
  ],
  // Seen deploying nsidnev/fastapi-realworld-example-app: its 2022 pins have no wheels for Python 3.11.
  [
    "psycopg2 from source (pip)",
    "Collecting psycopg2==2.9.9\n  Downloading psycopg2-2.9.9.tar.gz (384 kB)\n  × python setup.py egg_info did not run successfully.\n      Error: pg_config executable not found.",
    "a Python package (psycopg2) is compiled from source and the image lacks pg_config (libpq-dev): use psycopg2-binary, or psycopg[binary] 3, or give the service a build Dockerfile (FROM ${PLATFORM_PYTHON_IMAGE}) that runs apt-get install -y --no-install-recommends build-essential libpq-dev before installing the requirements",
  ],
  [
    "psycopg2 from source (uv)",
    "error: Failed to build `psycopg2==2.9.9`\n  cause: The build backend returned an error\n         Error: pg_config executable not found.",
    /\(psycopg2\) .*libpq-dev/,
  ],
  [
    "mysqlclient without its library",
    "Collecting mysqlclient==2.2.7\n      Exception: Can not find valid pkg-config name.\n      Specify MYSQLCLIENT_CFLAGS and MYSQLCLIENT_LDFLAGS env vars manually\n  × Getting requirements to build wheel did not run successfully.",
    /\(mysqlclient\) .*use PyMySQL .*build-essential default-libmysqlclient-dev pkg-config/,
  ],
  [
    "Rust",
    "error: can't find Rust compiler\n  ERROR: Failed building wheel for tokenizers",
    /\(tokenizers\) .*a Rust toolchain.*build-essential rustc cargo/,
  ],
  ["a wheel that did not build", "#12 50.1   ERROR: Failed building wheel for greenlet", /\(greenlet\) .*no C compiler/],

  // Lockfiles of another release (pnpm 7.33.7/8.15.9/9.15.9/10.34.9 against each other's lockfiles).
  [
    "pnpm 10 on a lockfileVersion 6.0",
    `#12 [build 5/8] RUN ... ([ "$(cd / && pnpm --version 2>/dev/null)" = "10.34.8" ] || npm install -g --force pnpm@10.34.8) && pnpm install --frozen-lockfile'\n#12 2.1  ERR_PNPM_LOCKFILE_BREAKING_CHANGE  Lockfile /app/pnpm-lock.yaml not compatible with current pnpm\n#12 2.1 Run with the --force parameter to recreate the lockfile.`,
    /^pnpm-lock\.yaml was written by another pnpm major than the one installing \(pnpm 10\.34\.8\): .*6\.0: pnpm 8/,
  ],
  [
    "pnpm 8 on a lockfileVersion 5.4",
    " ERR_PNPM_FROZEN_LOCKFILE_WITH_OUTDATED_LOCKFILE  Cannot perform a frozen installation because the version of the lockfile is incompatible with this version of pnpm",
    /^pnpm-lock\.yaml was written by another pnpm major/,
  ],
  [
    "yarn 4.18 on a yarn 3 lockfile",
    [
      "➤ YN0000: · Yarn 4.18.1",
      "➤ YN0000: ┌ Post-resolution validation",
      "➤ YN0000: │  __metadata:",
      "➤ YN0028: │ -  version: 6",
      "➤ YN0028: │ -  cacheKey: 8",
      "➤ YN0028: │ +  version: 10",
      "➤ YN0028: │ +  cacheKey: 10",
      "➤ YN0028: │ The lockfile would have been modified by this install, which is explicitly forbidden.",
    ].join("\n"),
    "yarn.lock has __metadata version 6, but yarn 4.18.1 writes version 10 and an immutable install refuses to rewrite it: name the yarn that wrote it in package.json packageManager, or none and the platform picks it by the lockfile's version, or run yarn install with yarn 4.18.1 and commit yarn.lock",
  ],
  [
    "yarn 3.8 on a yarn 4 lockfile (the version from the RUN line)",
    `RUN ... ([ "$(cd / && yarn --version 2>/dev/null)" = "3.8.7" ] || npm install -g --force @yarnpkg/cli-dist@3.8.7) && yarn install --immutable'\n#12 1.2 ➤ YN0028: │ -  version: 10\n#12 1.2 ➤ YN0028: │ +  version: 6\n`,
    /^yarn\.lock has __metadata version 10, but yarn 3\.8\.7 writes version 6/,
  ],
  [
    "yarn berry on a yarn 1 lockfile",
    [
      "➤ YN0028: │ -# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.",
      "➤ YN0028: │ -# yarn lockfile v1",
      '➤ YN0028: │ +# This file is generated by running "yarn install" inside your project.',
      "➤ YN0028: │ +# Manual changes might be lost - proceed with caution!",
      "➤ YN0028: │ +__metadata:",
      "➤ YN0028: │ +  version: 10",
    ].join("\n"),
    /^yarn\.lock is yarn classic's \(v1\), but this yarn writes version 10/,
  ],
  [
    "yarn berry immutable, packages changed",
    "➤ YN0028: │ The lockfile would have been modified by this install, which is explicitly forbidden.",
    /^yarn\.lock does not match package\.json/,
  ],
  [
    "yarn 1 on a stale (or a berry) lockfile",
    "error Your lockfile needs to be updated, but yarn was run with `--frozen-lockfile`.",
    /yarn\.lock does not match package\.json, or yarn 1 cannot read it/,
  ],
  [
    "npm 6 on lockfileVersion 3",
    "npm WARN read-shrinkwrap This version of npm is compatible with lockfileVersion@1, but package-lock.json was generated for lockfileVersion@3. I'll try to do my best with it!",
    /^package-lock\.json lockfileVersion 3 needs npm 7 or later/,
  ],
  [
    "npm ci out of sync",
    "#10 npm error `npm ci` can only install packages when your package.json and package-lock.json or npm-shrinkwrap.json are in sync. Please update your lock file",
    /npm install and commit package-lock\.json/,
  ],
  ["npm ci lock file's", "npm error Invalid: lock file's next@15.0.0 does not satisfy next@15.5.29", /package-lock\.json/],
  ["pnpm outdated", ' ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with "frozen-lockfile"', /pnpm install and commit/],
  ["bun frozen", "error: lockfile had changes, but lockfile is frozen", /bun install and commit/],
  ["uv lock stale", "error: The lockfile at `uv.lock` needs to be updated, but `--frozen` was provided.", /uv lock and commit/],
  [
    "poetry lock stale",
    "pyproject.toml changed significantly since poetry.lock was last generated. Run `poetry lock` to fix the lock file.",
    /poetry lock and commit/,
  ],
  ["poetry not consistent", "Error: poetry.lock is not consistent with pyproject.toml.", /poetry lock/],
  ["poetry without candidates", "#12 6.231     | Unable to find installation candidates for sniffio (1.2.0)", /poetry lock --regenerate/],

  // Python version refusals: uv sync (UV_PYTHON=python3, as the recipe runs it), uv pip, pip.
  [
    "requires-python (uv sync)",
    "Using CPython 3.11.7 interpreter at: /usr/bin/python3\nerror: The requested interpreter resolved to Python 3.11.7, which is incompatible with the project's Python requirement: `==3.12.*` (from `project.requires-python`)",
    "the project's requires-python (==3.12.*) excludes Python 3.11.7, the Python of this build (see the Python note above the build): use a Python version the platform offers, or widen requires-python",
  ],
  [
    "requires-python (uv, .python-version)",
    "error: The Python request from `.python-version` resolved to Python 3.11.2, which is incompatible with the workspace's Python requirement: `>=3.12, <3.13`",
    /requires-python \(>=3\.12, <3\.13\) excludes Python 3\.11\.2/,
  ],
  // Seen deploying fastapi/full-stack-fastapi-template (requires-python >=3.14) on Python 3.11.
  [
    "requires-python (uv pip)",
    "#13 2.923   cause: Because the current Python version (3.11.2) does not satisfy Python>=3.14,<4.0 and app==0.1.0 depends on Python>=3.14,<4.0",
    /requires-python/,
  ],
  ["requires-python (pip)", "ERROR: Package 'app' requires a different Python: 3.11.7 not in '<3.13,>=3.12'", /requires-python/],
  ["pip without a distribution", "ERROR: No matching distribution found for asyncpg==0.21.0", /not on the package index/],
];

describe("diagnoseBuildLog: one line with what to do", () => {
  it.each(cases)("%s", (_name, log, expected) => {
    const line = diagnoseBuildLog(log);
    if (typeof expected === "string") expect(line).toBe(expected);
    else expect(line).toMatch(expected);
    expect(line).not.toContain("\n");
  });

  it("says nothing about a log it does not recognise", () => {
    expect(diagnoseBuildLog('#5 ERROR: process "/bin/sh -c exit 3" did not complete successfully: exit code: 3')).toBeUndefined();
  });

  it("an install script that failed for another reason is not called a download", () => {
    const log =
      "npm error path /app/node_modules/husky\nnpm error command failed\nnpm error command sh -c husky install\nnpm error .git can't be found";
    expect(diagnoseBuildLog(log)).toBeUndefined();
  });

  it("a migration that succeeds in the build is not blamed for a later failure", () => {
    const log = [
      "> drizzle-kit migrate",
      "[✓] migrations applied successfully!",
      ...Array.from({ length: 5 }, (_, i) => `   Compiling page ${i}`),
      "Error: something else",
    ].join("\n");
    expect(diagnoseBuildLog(log)).toBeUndefined();
  });

  it("a prerender error without a failed fetch is not this diagnosis", () => {
    const log =
      'Error occurred prerendering page "/". Read more: https://nextjs.org/docs/messages/prerender-error\nError: DATABASE_URL is not set';
    expect(diagnoseBuildLog(log)).toBeUndefined();
  });
});
