import type { Command } from "commander";
import { stackOptions } from "./stack-options.js";

export function registerDb(program: Command): void {
  const db = program.command("db").description("database tools for postgres services");
  stackOptions(db.command("connect").argument("<service>", "a postgres service of platform.yml"))
    .description("open psql on a postgres service through a local tunnel")
    .option("--tunnel-only", "only open the tunnel, print its address and keep it until Ctrl-C")
    .action(async (service, o) => (await import("./db-action.js")).runDbConnect(service, o));
  stackOptions(db.command("backup").argument("<service>", "a postgres service of platform.yml"))
    .description("make a backup of a postgres service now (encrypted, verified), and a base backup for point-in-time restores")
    .action(async (service, o) => (await import("./db-backup-action.js")).runDbBackup(service, o));
  stackOptions(db.command("backups").argument("[service]", "only this postgres service's backups"))
    .description("list the backups of the environment's databases: when, size, kind, deployment, verified")
    .action(async (service, o) => (await import("./db-backup-action.js")).runDbBackups(service, o));
  stackOptions(
    db
      .command("restore")
      .argument("<service>", "a postgres service of platform.yml")
      .argument("[backup]", "the backup to restore (default: the newest)"),
  )
    .description("replace a database's data with a backup's (a safety backup is made first)")
    .option("-y, --yes", "do not ask for confirmation")
    .option("--to-env <name>", "restore into this environment instead (the backup is one of --env's)")
    .option("--to-time <time>", 'point-in-time: recover the database as it was then ("2026-11-26 10:41:00", UTC unless a zone is given)')
    .action(async (service, backup, o) =>
      o.toTime
        ? (await import("./db-pitr-action.js")).runDbRestoreToTime(service, o.toTime, { ...o, backup })
        : (await import("./db-backup-action.js")).runDbRestore(service, backup, o),
    );
  db.command("scheduler")
    .description("run the backup schedules of platform.yml (backup.schedule) until stopped: keep it running with systemd, launchd or nohup")
    .option("--project <name>", "only this project's schedules (default: those of every project deployed from this machine)")
    .action(async (o) => (await import("./db-backup-action.js")).runDbScheduler(o));
}
