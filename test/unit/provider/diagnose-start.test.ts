import { describe, expect, it } from "vitest";
import { diagnoseStartLog, diagnosisLine } from "../../../src/provider/contract/diagnose-start.js";

/** A failed start's log, as the libraries write it, and the one line that says what to change. */
describe("diagnoseStartLog", () => {
  it("a package's import-time version check (kombu refusing redis): names both and says to pin", () => {
    const log = `Traceback (most recent call last):
  File "/app/.venv/lib/python3.12/site-packages/kombu/transport/redis.py", line 292, in <module>
    raise VersionMismatch(
kombu.exceptions.VersionMismatch: Redis transport requires redis-py versions 4.5.2 or later. You have 5.0.1`;
    const d = diagnoseStartLog(log);
    expect(d).toMatch(
      /^a package checks another's version when it is imported, and refused it \(kombu: Redis transport requires redis-py versions 4\.5\.2/,
    );
    expect(d).toMatch(/pin the one the message names/);
  });

  it("NumPy 1 builds under NumPy 2", () => {
    const log = `A module that was compiled using NumPy 1.x cannot be run in
NumPy 2.1.3 as it may crash. To support both 1.x and 2.x`;
    expect(diagnoseStartLog(log)).toMatch(/pin numpy<2/);
  });

  it("a pydantic-settings class missing variables: names each, and the platform.yml env: key that sets it", () => {
    const log = `  File "/app/app/core/config.py", line 118, in <module>
    settings = Settings()  # type: ignore
pydantic_core._pydantic_core.ValidationError: 2 validation errors for Settings
SECRET_KEY
  Field required [type=missing, input_value={'PROJECT_NAME': 'x'}, input_type=dict]
    For further information visit https://errors.pydantic.dev/2.9/v/missing
postgres_server
  Field required [type=missing, input_value={'PROJECT_NAME': 'x'}, input_type=dict]
    For further information visit https://errors.pydantic.dev/2.9/v/missing`;
    expect(diagnoseStartLog(log, { service: "backend" })).toBe(
      "the app's settings class (Settings, pydantic-settings) requires SECRET_KEY, POSTGRES_SERVER, which the service's environment does not set: set them in platform.yml under services.backend.env (SECRET_KEY: ..., or ${secrets.SECRET_KEY} after platform secrets set SECRET_KEY)",
    );
  });

  it("a pydantic error that is not a missing variable is not this diagnosis", () => {
    const log = `pydantic_core._pydantic_core.ValidationError: 1 validation error for Settings
PORT
  Input should be a valid integer [type=int_parsing, input_value='x', input_type=str]`;
    expect(diagnoseStartLog(log)).toBeUndefined();
  });

  it("@t3-oss/env: both of its wordings (zod 3's object, the standard schema's issues)", () => {
    const old =
      "❌ Invalid environment variables: { AUTH_SECRET: [ 'Required' ], DATABASE_URL: [ 'Required' ] }\nError: Invalid environment variables";
    expect(diagnoseStartLog(old, { service: "web" })).toMatch(
      /^the app validates its environment \(@t3-oss\/env\) and AUTH_SECRET, DATABASE_URL are missing or invalid: set them in platform\.yml under services\.web\.env/,
    );
    const now = `❌ Invalid environment variables: [
  {
    expected: 'string',
    code: 'invalid_type',
    path: [ 'DATABASE_URL' ],
    message: 'Invalid input: expected string, received undefined'
  }
]`;
    expect(diagnoseStartLog(now)).toMatch(/DATABASE_URL is missing or invalid/);
  });

  it("a directory the app serves at start that no build made: Starlette's wording and an app's own", () => {
    expect(
      diagnoseStartLog(`  File "/app/.venv/lib/python3.12/site-packages/starlette/staticfiles.py", line 56, in __init__
    raise RuntimeError(f"Directory '{directory}' does not exist")
RuntimeError: Directory 'app/frontend' does not exist`),
    ).toMatch(/^the app serves app\/frontend at start, and no build of this service made it/);
    expect(diagnoseStartLog("RuntimeError: Frontend directory /app/app/frontend does not exist")).toMatch(
      /serves \/app\/app\/frontend at start/,
    );
  });

  it("a command nothing installed: bash's and sh's wording name it", () => {
    expect(diagnoseStartLog("> t3@0.1.0 db:push\n> drizzle-kit push\n\nsh: 1: drizzle-kit: not found")).toMatch(
      /^drizzle-kit is not installed in the image: no dependency of the service provides it\. Add the package that provides drizzle-kit/,
    );
    expect(diagnoseStartLog("/bin/bash: line 1: prisma: command not found")).toMatch(/^prisma is not installed in the image/);
  });

  it("prisma migrate deploy without its schema engine (Prisma 7.10, as it failed here)", () => {
    const log = `Loaded Prisma config from prisma.config.ts.

Error: request to https://binaries.prisma.sh/all_commits/d1b3f377ca835d73fd50954a5e22128b9ebdd6b8/debian-openssl-3.0.x/schema-engine.gz.sha256 failed, reason: getaddrinfo ENOTFOUND binaries.prisma.sh`;
    expect(diagnoseStartLog(log)).toMatch(
      /^Prisma fetches its schema engine from binaries\.prisma\.sh .*engine: "js" and an adapter in prisma\.config\.ts.*PRISMA_ENGINES_MIRROR/,
    );
  });

  it("a migration that connects with a URL written in the repository (alembic.ini), as testdrivenio/fastapi-sqlmodel-alembic's did", () => {
    const log = `  File "/opt/venv/lib/python3.11/site-packages/alembic/runtime/environment.py", line 938, in run_migrations
  File "/opt/venv/lib/python3.11/site-packages/asyncpg/connect_utils.py", line 866, in __connect_addr
asyncpg.exceptions.InvalidPasswordError: password authentication failed for user "postgres"`;
    expect(diagnoseStartLog(log)).toMatch(
      /^PostgreSQL refused the password of user "postgres": .*alembic reads sqlalchemy\.url from alembic\.ini .*DATABASE_URL: \$\{db\.url\}/,
    );
    expect(diagnoseStartLog('psycopg.OperationalError: FATAL:  password authentication failed for user "app"')).not.toContain("alembic");
  });

  it("alembic migrations with two heads (testdrivenio/fastapi-sqlmodel-alembic commits two init revisions)", () => {
    const log =
      "ERROR [alembic.util.messaging] Multiple head revisions are present for given argument 'head'; please specify a specific target revision, '<branchname>@head' to narrow to a specific head, or 'heads' for all heads";
    expect(diagnoseStartLog(log)).toMatch(/^the repository's alembic migrations have more than one head .*alembic merge heads/);
  });

  it("anything else: no diagnosis, and no line", () => {
    expect(diagnoseStartLog("ModuleNotFoundError: No module named 'app'")).toBeUndefined();
    expect(diagnosisLine("boom")).toBe("");
    expect(diagnosisLine("RuntimeError: Directory 'static' does not exist")).toMatch(/^diagnosis: the app serves static at start/);
  });
});
