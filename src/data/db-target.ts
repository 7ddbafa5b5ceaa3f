import type { Config } from "../config/types.js";
import { ExitCode, VisibleError } from "../errors.js";
import { DB_NAME, DB_USER } from "../plan/build-plan.js";
import type { Credentials } from "../engine/credentials.js";
import type { DatabaseTarget } from "./db-backup.js";
import { runningDatabase } from "./db-host.js";

/** A stack as the data commands and the deploy flow name it: its platform.yml, read and valid. */
export interface StackRef {
  configFile: string;
  projectDir: string;
  project: string;
  env: string;
  config: Config;
}

/** SERVICE names a postgres service of platform.yml, or a usage error says which ones do. */
export function postgresService(t: StackRef, service: string): void {
  const svc = t.config.services[service];
  const postgres = Object.values(t.config.services)
    .filter((s) => s.type === "postgres")
    .map((s) => s.name);
  if (!svc)
    throw new VisibleError(`no service "${service}" in ${t.configFile}; postgres services: ${postgres.join(", ") || "none"}`, {
      exitCode: ExitCode.usage,
    });
  if (svc.type !== "postgres")
    throw new VisibleError(
      `${service} is a ${svc.type} service: backups are made of postgres services (${postgres.join(", ") || "none here"})`,
      {
        exitCode: ExitCode.usage,
      },
    );
}

/** A postgres service where it runs now (its container, or its pod), for a backup, a restore or a copy. */
export async function databaseTarget(t: StackRef, service: string, creds: Credentials, env = t.env): Promise<DatabaseTarget> {
  postgresService(t, service);
  const host = await runningDatabase(t.project, env, service, creds);
  if (!host)
    throw new VisibleError(
      `${service} is not running in ${t.project} (${env}): run platform deploy${env === "preview" ? "" : ` --env ${env}`} (platform status says why)`,
      {
        exitCode: ExitCode.failed,
      },
    );
  return { project: t.project, env, service, host, user: DB_USER, database: DB_NAME };
}
