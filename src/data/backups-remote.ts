import { createHash } from "node:crypto";
import { createReadStream, rmSync } from "node:fs";
import type { S3Location } from "../runtime/s3.js";
import { s3GetFile, s3GetText, s3List, s3PutFile, s3PutText } from "../runtime/s3.js";
import { type BackupRecord, backupFile, backupSuffix, commitBackup, partialFile } from "./backups.js";

/**
 * Backups in an S3-compatible bucket (PLATFORM_BACKUP_S3): the same two files per backup as in
 * the local directory, under `<prefix>/<project>/<env>/<service>/`: the encrypted dump, then its
 * record. The record goes last, and a backup is listed only when both are there and the dump
 * has the recorded size, so an upload cut short is never listed as good. Object names carry
 * the project, environment, service and backup id, nothing secret.
 */
const dir = (r: Pick<BackupRecord, "project" | "env" | "service">) => `${r.project}/${r.env}/${r.service}`;

export async function uploadBackup(l: S3Location, r: BackupRecord): Promise<void> {
  await s3PutFile(l, `${dir(r)}/${r.id}${backupSuffix(r)}`, backupFile(r));
  await s3PutText(l, `${dir(r)}/${r.id}.json`, `${JSON.stringify(r, null, 2)}\n`);
}

/** The good backups in the bucket (of one service, or all), newest first. */
export async function remoteBackups(l: S3Location, project: string, env: string, service?: string): Promise<BackupRecord[]> {
  const objects = await s3List(l, service ? `${project}/${env}/${service}/` : `${project}/${env}/`);
  const sizes = new Map(objects.map((o) => [o.key, o.size]));
  const out: BackupRecord[] = [];
  for (const o of objects.filter((x) => x.key.endsWith(".json"))) {
    try {
      const r = JSON.parse(await s3GetText(l, o.key)) as BackupRecord;
      if (sizes.get(`${dir(r)}/${r.id}${backupSuffix(r)}`) === r.bytes && r.project === project && r.env === env) out.push(r);
    } catch {
      // a record that cannot be read is not a backup
    }
  }
  return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
}

async function sha256(file: string): Promise<string> {
  const h = createHash("sha256");
  for await (const c of createReadStream(file)) h.update(c as Buffer);
  return h.digest("hex");
}

/** Brings a backup from the bucket into the local directory (checked against its SHA-256): then it restores as any other. */
export async function fetchBackup(l: S3Location, r: BackupRecord): Promise<void> {
  const partial = partialFile(r.project, r.env, r.service, r.id);
  try {
    await s3GetFile(l, `${dir(r)}/${r.id}${backupSuffix(r)}`, partial);
    if ((await sha256(partial)) !== r.sha256)
      throw new Error(`${r.id} in the bucket is not the file that was recorded (its SHA-256 differs)`);
    commitBackup(partial, r);
  } finally {
    rmSync(partial, { force: true });
  }
}
