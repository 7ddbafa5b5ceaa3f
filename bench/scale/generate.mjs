// The scale bench's project of N services (issue 29), and the same project for docker compose.
//   - one shared postgres, `db`;
//   - svc1, svc3, ... are fastapi services, svc2, svc4, ... nextjs-type ones (a Node server);
//   - every service is a copy of bench/scale/app/<kind>: identical build contexts, so one
//     build per kind serves them all (BuildKit's cache) until one of them is changed;
//   - references: every fastapi service gets ${db.url} and (but svc1) ${svc1.url}; every
//     nextjs service gets ${svcK.url} of the fastapi service before it, and depends on it;
//     nextjs services (and a last fastapi one) are public; nextjs ones get their ${svcN.external_url};
//   - migrations: svc1, svc5, svc9, ... run lifecycle.migrate (a table of their own).
// The dependency graph is three deep at most (db, svc1, the others' fastapi, nextjs), as in most real projects, so
// that the size of the project, not a chain, is what grows.
// Usage: node bench/scale/generate.mjs DIR [SERVICES]   (writes platform.yml and compose.json)
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const APP = join(import.meta.dirname, "app");

/**
 * The generated services, in order: { name, kind, migrate, public, api? }. With `publicUrls`
 * false no service is public (no HTTPS edge: its cost is bench/edge's subject, and a shared
 * engine's edge may be another session's).
 */
export function scaleServices(count, { publicUrls = true } = {}) {
  return Array.from({ length: count }, (_, k) => {
    const i = k + 1;
    const name = `svc${i}`;
    // The last fastapi service has no nextjs service calling it: public, so that it is reachable.
    if (i % 2 === 1) return { name, kind: "fastapi", migrate: i % 4 === 1, public: publicUrls && i === count };
    return { name, kind: "nextjs", migrate: false, public: publicUrls, api: `svc${i - 1}` };
  });
}

/** The service a "one service changed" run edits: a fastapi service with a migration that others reference. */
export const CHANGED_SERVICE = "svc1";

/** Edits one service's code (a comment appended): only its build context changes. */
export function changeService(dir, name, note) {
  const file = join(dir, name, existsSync(join(dir, name, "main.py")) ? "main.py" : "server.mjs");
  const comment = file.endsWith(".py") ? "#" : "//";
  writeFileSync(file, `${readFileSync(file, "utf8")}${comment} bench change ${note}\n`);
}

function platformYml(project, services) {
  const lines = [
    'version: "1.0"',
    `name: ${project}`,
    `description: ${services.length} generated services and a shared postgres (bench/scale)`,
    "services:",
    "  db:",
    "    type: postgres",
    "    resources:",
    "      preset: small",
    "      storage: 1Gi",
    "      retention: permanent",
  ];
  for (const s of services) {
    lines.push(`  ${s.name}:`, `    type: ${s.kind}`, "    build:", `      source: ./${s.name}`, "      dockerfile: Dockerfile");
    if (s.public) lines.push("    public: true");
    lines.push("    env:", `      SERVICE_NAME: ${s.name}`);
    if (s.kind === "fastapi") {
      lines.push("      DATABASE_URL: ${db.url}");
      if (s.name !== "svc1") lines.push("      UPSTREAM_URL: ${svc1.url}");
      lines.push(`    depends_on: [db${s.name === "svc1" ? "" : ", svc1"}]`);
    } else {
      lines.push(`      API_URL: \${${s.api}.url}`);
      if (s.public) lines.push(`      PUBLIC_URL: \${${s.name}.external_url}`);
      lines.push(`    depends_on: [${s.api}]`);
    }
    if (s.migrate) lines.push("    lifecycle:", "      migrate:", "        command: [python, migrate.py]", "        timeout: 5m");
    lines.push("    health:", "      http: /health", "    resources: small");
  }
  return `${lines.join("\n")}\n`;
}

// What bench/compare gives compose too: the platform's limits per container (preset small),
// health polled every second (the platform's own poll grows from 0.1 s to 1 s), ports on
// loopback only. The database's credentials are fixed: compose has no generated secrets.
const LIMITS = { resources: { limits: { cpus: "0.5", memory: "512M" } } };
const DB_URL = "postgresql://app:app@db:5432/app";
const health = (kind, port) => ({
  test:
    kind === "fastapi"
      ? ["CMD", "python3", "-c", `import urllib.request; urllib.request.urlopen('http://127.0.0.1:${port}/health', timeout=3)`]
      : ["CMD", "node", "-e", `fetch('http://127.0.0.1:${port}/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))`],
  interval: "1s",
  timeout: "5s",
  retries: 60,
});

function composeFile(project, services, images) {
  const out = {
    name: project,
    services: {
      db: {
        image: images.postgres,
        environment: { POSTGRES_USER: "app", POSTGRES_PASSWORD: "app", POSTGRES_DB: "app" },
        volumes: ["db-data:/var/lib/postgresql/data"],
        healthcheck: { test: ["CMD-SHELL", "pg_isready -h 127.0.0.1 -U app -d app"], interval: "1s", timeout: "5s", retries: 60 },
        deploy: LIMITS,
      },
    },
    volumes: { "db-data": {} },
    secrets: { ca: { file: "${BUILD_CA_FILE:-/dev/null}" } },
  };
  for (const s of services) {
    const port = 8080;
    const base = s.kind === "fastapi" ? "PLATFORM_PYTHON_IMAGE" : "PLATFORM_NODE_IMAGE";
    const build = { context: `./${s.name}`, args: { [base]: `\${${base}}` }, secrets: ["ca"] };
    const image = `${project}-${s.name}:local`;
    const environment = { SERVICE_NAME: s.name, PORT: String(port) };
    const dependsOn = {};
    if (s.kind === "fastapi") {
      environment.DATABASE_URL = DB_URL;
      dependsOn.db = { condition: "service_healthy" };
      if (s.name !== "svc1") {
        environment.UPSTREAM_URL = `http://svc1:${port}`;
        dependsOn.svc1 = { condition: "service_healthy" };
      }
    } else {
      environment.API_URL = `http://${s.api}:${port}`;
      if (s.public) environment.PUBLIC_URL = `http://${s.name}.localhost`;
      dependsOn[s.api] = { condition: "service_healthy" };
    }
    if (s.migrate) {
      // Runs once; the service starts only when it exited 0 (lifecycle.migrate, on_failure: abort).
      out.services[`${s.name}-migrate`] = {
        build,
        image,
        command: ["python", "migrate.py"],
        environment,
        depends_on: { db: { condition: "service_healthy" } },
        restart: "no",
        deploy: LIMITS,
      };
      dependsOn[`${s.name}-migrate`] = { condition: "service_completed_successfully" };
    }
    out.services[s.name] = {
      build,
      image,
      environment,
      depends_on: dependsOn,
      healthcheck: health(s.kind, port),
      ...(s.public ? { ports: [`127.0.0.1::${port}`] } : {}),
      deploy: LIMITS,
    };
  }
  return out;
}

/**
 * A cold build without touching anyone's cache: a first step of the build's own, right after
 * FROM, so that no step after it matches any cache record made before, and every record the
 * build makes descends from this step's record, which names the salt (bench/compare/docker.mjs
 * finds and prunes them by it). All services of one kind get the same salt: one build still
 * serves them all.
 */
function saltDockerfile(file, salt) {
  const text = readFileSync(file, "utf8").replace(/^(FROM .*)$/m, `$1\nRUN echo ${salt} > /.platform-bench-salt`);
  writeFileSync(file, text);
}

/**
 * Writes the project of `count` services into `dir`: each service's directory (a copy of its
 * kind's template), platform.yml and, for docker compose, compose.json (JSON is YAML).
 * `images`: the set-up's images.json (compose's postgres image); `salt`: see saltDockerfile;
 * `publicUrls`: see scaleServices.
 * Returns the file paths and the services.
 */
export function generateScaleProject(dir, count, { project = `scale${count}`, images, salt, publicUrls = true } = {}) {
  const services = scaleServices(count, { publicUrls });
  mkdirSync(dir, { recursive: true });
  for (const s of services) {
    cpSync(join(APP, s.kind), join(dir, s.name), { recursive: true });
    if (salt) saltDockerfile(join(dir, s.name, "Dockerfile"), salt);
  }
  const platformFile = join(dir, "platform.yml");
  writeFileSync(platformFile, platformYml(project, services));
  const composeFileName = join(dir, "compose.json");
  if (images) writeFileSync(composeFileName, `${JSON.stringify(composeFile(project, services, images), null, 2)}\n`);
  return { platformFile, composeFile: composeFileName, services };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2];
  if (!dir) {
    process.stderr.write("usage: node bench/scale/generate.mjs DIR [SERVICES]\n");
    process.exit(2);
  }
  const home = process.env.PLATFORM_HOME || join(process.env.HOME, ".platform");
  const images = JSON.parse(readFileSync(join(home, "images.json"), "utf8"));
  const r = generateScaleProject(dir, Number(process.argv[3] ?? 20), { images });
  process.stdout.write(`${r.platformFile}\n${r.composeFile}\n`);
}
