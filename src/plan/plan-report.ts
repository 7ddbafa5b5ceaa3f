/**
 * What `platform plan` says per service: what the platform decided and why, from a Plan
 * (pure). The only outside fact, a `build` service's Dockerfile text (for its ARG names), is
 * read through the given function, so the report is tested on fixtures without a disk.
 */
import { ARCHIVE_TIMEOUT_SECONDS } from "./wal-archive.js";
import { join, relative } from "node:path";
import { parseDockerfileArgs } from "./dockerfile-args.js";
import { describeStartCommand } from "./start-command.js";
import type { Plan, PlannedService } from "./types.js";

export interface ServiceReport {
  readonly name: string;
  readonly type: PlannedService["type"];
  readonly public: boolean;
  /** "generated Dockerfile for ./api", "Dockerfile ./hook/Dockerfile", "image postgres:17". */
  readonly build: string;
  readonly install?: string;
  readonly runtime?: string;
  readonly app?: string;
  readonly start?: string;
  /** Names only: values are never shown. */
  readonly buildEnv: readonly string[];
  /** The build-time variables that also go in as --build-arg (names a Dockerfile declares with ARG). */
  readonly buildArgs: readonly string[];
  readonly fallbacks: readonly string[];
  readonly dependsOn: readonly string[];
  /** What else is worth knowing, as "label: text": a database's volume and retention, a migration. */
  readonly details: readonly string[];
}

export interface PlanReport {
  readonly project: string;
  readonly env: string;
  readonly services: readonly ServiceReport[];
  /** The secrets platform.yml refers to, and whether the environment has each (names only). */
  readonly secrets: ReadonlyArray<{ readonly name: string; readonly set: boolean }>;
}

/** Where a path is, as a person in the project directory would write it. */
function fromProject(projectDir: string, path: string): string {
  const rel = relative(projectDir, path);
  return rel === "" ? "." : rel.startsWith("..") ? path : `./${rel}`;
}

function reportService(s: PlannedService, projectDir: string, readDockerfile: (path: string) => string | undefined): ServiceReport {
  const base = { name: s.name, type: s.type, public: s.public, buildEnv: s.buildEnv, dependsOn: s.dependsOn };
  const details: string[] = [];
  if (s.database) {
    details.push(
      `data: volume ${s.database.volumeName} (retention ${s.database.retain ? "permanent" : "delete"}${s.database.storage ? `, storage ${s.database.storage}` : ""})`,
    );
    details.push(
      `wal: archived into volume ${s.database.walArchive.volumeName} on Docker, into wal-archive/ of the data claim on Kubernetes (archive_timeout ${ARCHIVE_TIMEOUT_SECONDS} s)`,
    );
  }
  if (s.redis) {
    details.push(
      `data: volume ${s.redis.volumeName} (retention ${s.redis.retain ? "permanent" : "delete"}; AOF, appendfsync everysec), ${s.redis.passwordless ? "no password (auth: none): any container on the stack's network may use it" : "password generated per stack"}`,
    );
  }
  if (s.database) details.push("tls: ssl=on, a certificate from the stack's own CA; plain connections accepted too");
  if (s.databaseCaFile) {
    const names = ["PGSSLROOTCERT", "NODE_EXTRA_CA_CERTS"].filter((n) =>
      s.env[n]?.some((p) => p.kind === "text" && p.text === s.databaseCaFile),
    );
    details.push(`db CA: ${s.databaseCaFile}${names.length ? ` (${names.join(", ")})` : ""}, for sslmode=verify-full`);
  }
  if (s.migrate) {
    const from =
      s.build?.kind === "recipe" && s.build.recipe.migrateTarget
        ? "; from the build stage, every dependency (dev ones too)"
        : "; from the service's image";
    details.push(
      `migrate: ${s.migrate.command.join(" ")} (timeout ${s.migrate.timeoutSeconds}s, on_failure ${s.migrate.continueOnFailure ? "continue" : "abort"})${from}`,
    );
  }
  if (s.type === "worker") {
    const check =
      s.health.kind === "exec"
        ? `${describeStartCommand(s.health.command)} exits 0 in its container (platform.yml health.command)`
        : `keeps running ${s.health.kind === "running" ? (s.health.settleSeconds ?? 0) : 0}s after start`;
    details.push(`health: ${check}; no port, no URL; SIGTERM, then ${s.stopGraceSeconds}s`);
  }
  for (const j of s.cron ?? []) details.push(`cron: ${j.name} "${j.schedule}" (UTC, no overlap): ${describeStartCommand(j.command)}`);
  const b = s.build;
  if (!b && s.prebuilt)
    return {
      ...base,
      build: `prebuilt image ${s.image} (pulled when the engine lacks it; run and recorded by its id)`,
      ...(s.command ? { start: `${describeStartCommand(s.command)} (platform.yml start)` } : { start: "the image's CMD" }),
      buildArgs: [],
      fallbacks: [],
      details,
    };
  if (!b) return { ...base, build: `image ${s.image}`, buildArgs: [], fallbacks: [], details };
  if (b.kind === "dockerfile") {
    const declared = parseDockerfileArgs(readDockerfile(b.dockerfilePath) ?? "");
    return {
      ...base,
      build: `Dockerfile ${fromProject(projectDir, b.dockerfilePath)}`,
      ...(s.command ? { start: `${describeStartCommand(s.command)} (platform.yml start)` } : { start: "the Dockerfile's CMD" }),
      buildArgs: s.buildEnv.filter((n) => declared.includes(n)),
      fallbacks: [],
      details,
    };
  }
  const r = b.recipe.summary;
  const member = b.recipe.context?.member;
  const where = member
    ? `${fromProject(projectDir, join(b.context, member))} (built from the workspace root ${fromProject(projectDir, b.context)})`
    : fromProject(projectDir, b.context);
  return {
    ...base,
    build: `generated Dockerfile for ${where}`,
    install: r.install,
    runtime: r.runtime,
    ...(r.app ? { app: r.app } : {}),
    start: r.start,
    buildArgs: [],
    fallbacks: r.fallbacks,
    details: r.prisma ? [`prisma: ${r.prisma}`, ...details] : details,
  };
}

export function buildPlanReport(
  plan: Plan,
  projectDir: string,
  readDockerfile: (path: string) => string | undefined,
  setSecrets: ReadonlySet<string>,
): PlanReport {
  return {
    project: plan.project,
    env: plan.env,
    services: plan.services.map((s) => reportService(s, projectDir, readDockerfile)),
    secrets: plan.secrets.map((name) => ({ name, set: setSecrets.has(name) })),
  };
}
