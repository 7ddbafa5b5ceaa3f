import { z } from "zod";

/** PostgreSQL majors the platform builds (scripts/setup/images.sh BASE_POSTGRES_SUITES), and its default. */
export const POSTGRES_VERSIONS = ["15", "17", "18"] as const;
export const DEFAULT_POSTGRES_VERSION = "15";

/** `version:` on a postgres service. Checked in rules-backup.ts, which names the versions there are; the enum is for editors. */
export const postgresVersionSchema = z
  .union([z.string(), z.number()])
  .describe(
    `The PostgreSQL major version of a postgres service: ${POSTGRES_VERSIONS.join(", ")} (Debian's packages: bookworm 15, trixie 17, forky 18; one not built yet is built on first need). postgres only. Default ${DEFAULT_POSTGRES_VERSION}. Raising it on a database that has data upgrades it at the next deploy: a backup, then its data copied into the new version (see docs/guide/backups.md, "PostgreSQL versions"); it never goes down.`,
  )
  .meta({ enum: [...POSTGRES_VERSIONS.map(Number), ...POSTGRES_VERSIONS], examples: [17] });
