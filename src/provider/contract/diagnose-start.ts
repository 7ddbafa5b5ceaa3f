/**
 * Why a service stopped before it was healthy, read from its last log lines: one `diagnosis:`
 * line that names the repository's own fault and what to change, as builds have
 * (provider/docker/build-diagnoses.ts). Shared by both targets: the Docker provider's health wait
 * and migration jobs, and the Kubernetes crash and rollout reads. Pure: the unit tests hold the
 * libraries' real wording. First match wins; undefined when no known shape matches.
 */

export interface StartContext {
  /** The service, as platform.yml names it. */
  readonly service?: string;
}

type Say = (m: RegExpMatchArray & { index: number }, log: string, c: StartContext) => string | undefined;

const envHint = (names: readonly string[], c: StartContext) => {
  const where = c.service ? `services.${c.service}.env` : "the service's env:";
  const first = names[0] ?? "NAME";
  return `set ${names.length > 1 ? "them" : "it"} in platform.yml under ${where} (${first}: ..., or \${secrets.${first}} after platform secrets set ${first})`;
};

/** pydantic-settings: `N validation error(s) for Settings` then per field its name and `Field required`. */
function pydanticMissing(m: RegExpMatchArray & { index: number }, log: string, c: StartContext): string | undefined {
  const after = log.slice(m.index);
  const names = [...after.matchAll(/^\s*([A-Za-z_][A-Za-z0-9_]*)\n\s+Field required \[type=missing/gm)].map((x) => x[1]!.toUpperCase());
  if (names.length === 0) return undefined;
  const unique = [...new Set(names)];
  return `the app's settings class (${m[1]}, pydantic-settings) requires ${unique.join(", ")}, which the service's environment does not set: ${envHint(unique, c)}`;
}

/** @t3-oss/env-nextjs / env-core: `❌ Invalid environment variables:` then the issues, by name. */
function t3EnvMissing(m: RegExpMatchArray & { index: number }, log: string, c: StartContext): string | undefined {
  const after = log.slice(m.index, m.index + 4000);
  const names = [
    ...[...after.matchAll(/path: \[\s*'([A-Za-z_][A-Za-z0-9_]*)'\s*\]/g)].map((x) => x[1]!),
    ...[...after.matchAll(/\b([A-Z][A-Z0-9_]+): \[\s*'[^']*'/g)].map((x) => x[1]!),
  ];
  if (names.length === 0) return undefined;
  const unique = [...new Set(names)];
  return `the app validates its environment (@t3-oss/env) and ${unique.join(", ")} ${unique.length > 1 ? "are" : "is"} missing or invalid: ${envHint(unique, c)}; a variable the build reads (next build) is given to the build too`;
}

const START_DIAGNOSES: ReadonlyArray<readonly [RegExp, Say]> = [
  // A command that nothing installed: bash's, dash's and the runtime's wording.
  [
    /(?:^|\n)(?:\/bin\/(?:ba)?sh: (?:line )?\d+: |sh: \d+: )([\w@./-]+): (?:command )?not found|exec: "([\w@./-]+)": executable file not found in \$PATH/,
    (m) => {
      const cmd = m[1] ?? m[2] ?? "the command";
      return `${cmd} is not installed in the image: no dependency of the service provides it. Add the package that provides ${cmd} to the project's dependencies (package.json: devDependencies is enough for a migration, which runs with every dependency; requirements or pyproject.toml for Python), or run a command the image has`;
    },
  ],
  // prisma migrate deploy (Prisma 7 too) fetches its native schema engine at first run.
  [
    /binaries\.prisma\.sh/,
    () =>
      'Prisma fetches its schema engine from binaries.prisma.sh when the migration first runs (the install script that would have fetched it earlier did not), and this machine cannot reach it: run migrations through a driver adapter, which needs no download (Prisma 6.16+: engine: "js" and an adapter in prisma.config.ts, @prisma/adapter-pg 7 or later; docs: guide/builds, "Prisma"), or set PRISMA_ENGINES_MIRROR in the service\'s env to a mirror it can reach',
  ],
  // kombu refusing the redis package (a Celery repository that pins redis but not kombu).
  [
    /([A-Za-z_][\w.]*)\.VersionMismatch: (.+)/,
    (m) =>
      `a package checks another's version when it is imported, and refused it (${m[1]!.split(".")[0]}: ${m[2]!.trim()}): the repository's requirements let the resolver pick versions that do not work together; pin the one the message names (in requirements.txt or pyproject.toml) and deploy again`,
  ],
  [
    /pkg_resources\.(?:VersionConflict|ContextualVersionConflict): (.+)/,
    (m) =>
      `a package found another at a version it does not accept (${m[1]!.trim()}): pin a compatible version in the repository's requirements and deploy again`,
  ],
  [
    /A module that was compiled using NumPy 1\.x cannot be run in\s+NumPy 2/,
    () =>
      "a compiled package was built against NumPy 1 and NumPy 2 is installed: pin numpy<2 in the repository's requirements (or upgrade the package that needs it) and deploy again",
  ],
  // A URL written in the repository (alembic.ini's sqlalchemy.url, a settings default) instead of
  // the one the platform gives the service: PostgreSQL refuses its password.
  [
    /password authentication failed for user "([^"]+)"/,
    (m, log) => {
      const alembic = /[/\\]alembic[/\\]|\balembic upgrade\b/.test(log)
        ? ' (alembic reads sqlalchemy.url from alembic.ini unless its env.py sets it: config.set_main_option("sqlalchemy.url", os.environ["DATABASE_URL"]))'
        : "";
      return `PostgreSQL refused the password of user "${m[1]}": the app connects with a URL written in the repository, not the one the platform gives the service${alembic}; read the URL from the service's env (DATABASE_URL: \${db.url} in platform.yml) and deploy again`;
    },
  ],
  [
    /Multiple head revisions are present for given argument/,
    () =>
      "the repository's alembic migrations have more than one head (two revisions with the same parent, or two with none; alembic heads lists them): merge them (alembic merge heads) or remove the stray ones, commit, and deploy again",
  ],
  [/\d+ validation errors? for (\w+)/, pydanticMissing],
  [/❌ Invalid environment variables:/, t3EnvMissing],
  // Starlette's StaticFiles, and apps that check for a frontend build themselves.
  [
    /(?:RuntimeError: )?Directory '([^']+)' does not exist|([Ff]rontend|[Ss]tatic|[Bb]uild) directory '?([^'\s]+?)'? does not exist/,
    (m) => {
      const dir = m[1] ?? m[3] ?? "the directory";
      return `the app serves ${dir} at start, and no build of this service made it (a frontend's build output, made by another part of the repository): build the service from the repository's own Dockerfile that makes it (build: in platform.yml), or serve the frontend as a service of its own and let the backend start without it`;
    },
  ],
];

/** The diagnosis of a service's failed start, from its last log lines; undefined when no known shape matches. */
export function diagnoseStartLog(log: string, c: StartContext = {}): string | undefined {
  for (const [re, say] of START_DIAGNOSES) {
    // The last match: a traceback quotes the raising line's source before its final message.
    const m = [...log.matchAll(new RegExp(re.source, `${re.flags}g`))].at(-1);
    if (!m) continue;
    const line = say(m as RegExpMatchArray & { index: number }, log, c);
    if (line) return line;
  }
  return undefined;
}

/** `diagnosis: ...\n` to put above a log tail, or nothing. */
export function diagnosisLine(log: string, c: StartContext = {}): string {
  const d = diagnoseStartLog(log, c);
  return d ? `diagnosis: ${d}\n` : "";
}
