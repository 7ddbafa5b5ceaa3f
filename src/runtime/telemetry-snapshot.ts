import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { docker, execInContainer } from "../docker-client.js";
import { TELEMETRY_CONTAINER, TELEMETRY_DATA } from "../provider/docker/receiver-image.js";
import { STORE_FILE } from "../telemetry/index.js";

/**
 * The telemetry store of an engine on a server lives in that engine's volume (receiver.ts),
 * out of reach of this machine's SQLite. Studio reads a copy: `VACUUM INTO` inside the
 * receiver makes a consistent one while it keeps writing (a file copy of a WAL database can be
 * torn), and it comes back base64 on the exec's stdout (no archive format to unpack).
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

/**
 * Copies the server's store into `dir` (as STORE_FILE, replaced whole so a reader never sees
 * half of one). False when there is no receiver or no store yet.
 */
export async function copyServerTelemetry(dir: string): Promise<boolean> {
  const r = await execInContainer(docker(), TELEMETRY_CONTAINER, ["node", "--no-warnings", "-e", SCRIPT]).catch(() => undefined);
  // Between markers: stderr shares the exec's output.
  const data = r?.exitCode === 0 ? /<<([A-Za-z0-9+/=]+)>>/.exec(r.output)?.[1] : undefined;
  if (!data) return false;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `${STORE_FILE}.tmp`);
  writeFileSync(tmp, Buffer.from(data, "base64"));
  renameSync(tmp, join(dir, STORE_FILE));
  return true;
}
