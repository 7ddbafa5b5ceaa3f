/**
 * Build failures of Python packages compiled from source: which package, what the image
 * lacks (a compiler, a library's headers, pg_config, Rust), and the Debian packages that a
 * `build` Dockerfile would add. Patterns are pip's and uv's wording (pip 23-25, uv 0.13),
 * and the packages' own messages (psycopg2, mysqlclient, psutil, Pillow, lxml, cryptography).
 */

/** What a log says is missing, and the Debian packages that provide it. */
const MISSING: ReadonlyArray<[RegExp, string, readonly string[]]> = [
  [/pg_config executable not found|pg_config is required to build psycopg2/, "pg_config (libpq-dev)", ["libpq-dev"]],
  [
    /mysql_config not found|Can not find valid pkg-config name\.[\s\S]{0,80}MYSQLCLIENT_CFLAGS/,
    "the MySQL client library",
    ["default-libmysqlclient-dev", "pkg-config"],
  ],
  [/Python\.h: No such file or directory/, "Python's headers", ["python3-dev"]],
  [/ffi\.h: No such file or directory/, "libffi's headers", ["libffi-dev"]],
  [/openssl\/\w+\.h: No such file or directory/, "OpenSSL's headers", ["libssl-dev"]],
  [
    /libxml\/\w+\.h: No such file or directory|xslt-config: not found|libxml2 and libxslt development packages/,
    "libxml2 and libxslt",
    ["libxml2-dev", "libxslt1-dev"],
  ],
  [/headers or library files could not be found for jpeg/, "libjpeg", ["libjpeg-dev", "zlib1g-dev"]],
  [/headers or library files could not be found for zlib/, "zlib", ["zlib1g-dev"]],
  [/krb5-config: not found/, "Kerberos (krb5-config)", ["libkrb5-dev"]],
  [/lber\.h: No such file or directory|ldap\.h: No such file or directory/, "the LDAP headers", ["libldap2-dev", "libsasl2-dev"]],
  [/can't find Rust compiler|Cargo, the Rust package manager, is not installed|cargo: not found/, "a Rust toolchain", ["rustc", "cargo"]],
];

/** No C compiler: setuptools, distutils and sh each say it their way. */
const NO_COMPILER =
  /error: command '[^']*gcc' failed|gcc: not found|unable to execute '[^']*gcc'|command 'cc' failed|cc: not found|No such file or directory: '[^']*gcc'|gcc is not installed/;

/** A Python package's build failed (pip, uv), or one of the signs above. */
export const PYTHON_BUILD_FAILURE = new RegExp(
  [
    NO_COMPILER.source,
    /Failed building wheel for|Failed to build `[^`]+`|Getting requirements to build wheel did not run successfully|python setup\.py egg_info did not run successfully/
      .source,
    ...MISSING.map(([re]) => re.source),
  ].join("|"),
);

/** The package that failed to build: uv names it, pip's wheel step names it, else pip's last "Collecting". */
function findPackage(log: string): string | undefined {
  const uv = /Failed to build `([A-Za-z0-9_.-]+?)(?:==[^`]*)?`/.exec(log)?.[1];
  if (uv) return uv;
  const wheel = /Failed building wheel for ([A-Za-z0-9_.-]+)/.exec(log)?.[1];
  if (wheel) return wheel;
  const collecting = [...log.matchAll(/Collecting ([A-Za-z0-9_.-]+)/g)].at(-1)?.[1];
  return collecting;
}

/** Packages that have a binary twin on PyPI: the quickest way out. */
const BINARY_TWINS: Record<string, string> = {
  psycopg2: "psycopg2-binary, or psycopg[binary] 3",
  mysqlclient: "PyMySQL (pure Python)",
};

/** One line: which package, what is missing, the Debian packages for a `build` Dockerfile. */
export function diagnosePythonBuild(log: string): string {
  const pkg = findPackage(log);
  const found = MISSING.filter(([re]) => re.test(log));
  const compiler = NO_COMPILER.test(log);
  const debs = [...new Set(["build-essential", ...found.flatMap(([, , d]) => d)])];
  const lacks = [...(compiler ? ["a C compiler"] : []), ...found.map(([, what]) => what)];
  const what = lacks.length > 0 ? `the image lacks ${lacks.join(" and ")}` : "the image has no C compiler or library headers";
  const twin = pkg && BINARY_TWINS[pkg.toLowerCase()];
  const instead = twin ? `use ${twin}` : "pin a version that ships a prebuilt wheel for this Python";
  return (
    `a Python package${pkg ? ` (${pkg})` : ""} is compiled from source and ${what}: ${instead}, ` +
    `or give the service a build Dockerfile (FROM \${PLATFORM_PYTHON_IMAGE}) that runs ` +
    `apt-get install -y --no-install-recommends ${debs.join(" ")} before installing the requirements`
  );
}
