import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { docker, execInContainer } from "../docker-client.js";
import { TELEMETRY_CONTAINER, TELEMETRY_DATA } from "../provider/contract/receiver-image.js";
import { STORE_FILE } from "../telemetry/index.js";

/**
 * A telemetry store out of reach of this machine's SQLite (in an engine's volume on a server,
 * receiver.ts; on a claim in a cluster, targets/kubernetes/telemetry.ts): Studio reads a copy.
 * `VACUUM INTO` inside the receiver makes a consistent one while it keeps writing (a file copy of
 * a WAL database can be torn), and it comes back base64 on the exec's stdout (no archive format
 * to unpack). The receiver image has Node, so the command is Node's.
 */
const SNAPSHOT = `${TELEMETRY_DATA}/.studio-snapshot.sqlite`;
const SCRIPT = [
  'const { DatabaseSync } = require("node:sqlite"); const fs = require("node:fs");',
  `fs.rmSync(${JSON.stringify(SNAPSHOT)}, { force: true });`,
  `const db = new DatabaseSync(${JSON.stringify(`${TELEMETRY_DATA}/${STORE_FILE}`)});`,
  `db.exec("VACUUM INTO '${SNAPSHOT}'"); db.close();`,
  `process.stdout.write("<<" + fs.readFileSync(${JSON.stringify(SNAPSHOT)}).toString("base64") + ">>");`,
  `fs.rmSync(${JSON.stringify(SNAPSHOT)}, { force: true });`,
].join(" ");

/** What to exec in the receiver's container: it prints the snapshot between markers. */
export const SNAPSHOT_COMMAND: readonly string[] = ["node", "--no-warnings", "-e", SCRIPT];

/**
 * Writes the snapshot an exec printed into `dir` (as STORE_FILE, replaced whole so a reader
 * never sees half of one). False when the output holds none (no receiver or no store yet).
 */
export function saveSnapshot(dir: string, output: string | undefined): boolean {
  // Between markers: stderr may share the exec's output.
  const data = output ? /<<([A-Za-z0-9+/=]+)>>/.exec(output)?.[1] : undefined;
  if (!data) return false;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `${STORE_FILE}.tmp`);
  writeFileSync(tmp, Buffer.from(data, "base64"));
  renameSync(tmp, join(dir, STORE_FILE));
  return true;
}

/** Copies the store of the engine on a server into `dir`; false when there is no receiver or no store yet. */
export async function copyServerTelemetry(dir: string): Promise<boolean> {
  const r = await execInContainer(docker(), TELEMETRY_CONTAINER, [...SNAPSHOT_COMMAND]).catch(() => undefined);
  return saveSnapshot(dir, r?.exitCode === 0 ? r.output : undefined);
}
