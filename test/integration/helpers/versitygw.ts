import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { platformHome } from "../../../src/home/layout.js";
import { type S3Location, s3CreateBucket } from "../../../src/runtime/s3.js";
import { freePort, unique } from "./env.js";

/**
 * A real S3 server on 127.0.0.1 for the backup tests: versitygw (built from Go modules by
 * scripts/setup/versitygw.sh) on a fresh directory and a free port, with keys of its own and the
 * bucket "backups" made; `env` is what points the CLI at it (prefix "team"). `stop()` ends the
 * server and removes its directory (the bucket's objects: about 50 MB after a backup test).
 */
export async function startVersitygw(): Promise<{
  server: ChildProcess;
  stop: () => Promise<void>;
  bucket: S3Location;
  env: Record<string, string>;
  accessKey: string;
  secretKey: string;
}> {
  const record = join(platformHome(), "versitygw.json");
  if (!existsSync(record)) throw new Error(`no ${record}: run bash scripts/setup/versitygw.sh (npm test does)`);
  const bin = (JSON.parse(readFileSync(record, "utf8")) as { versitygw: string }).versitygw;
  const accessKey = `AK${unique("x").toUpperCase()}`;
  const secretKey = `sk-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
  const port = await freePort();
  const data = mkdtempSync(join(tmpdir(), "versitygw-"));
  const server = spawn(bin, ["--access", accessKey, "--secret", secretKey, "--port", `127.0.0.1:${port}`, "posix", data], {
    stdio: "ignore",
  });
  const env = {
    PLATFORM_BACKUP_S3: `http://127.0.0.1:${port}/backups/team`,
    PLATFORM_BACKUP_S3_ACCESS_KEY: accessKey,
    PLATFORM_BACKUP_S3_SECRET_KEY: secretKey,
  };
  const bucket: S3Location = {
    endpoint: new URL(`http://127.0.0.1:${port}`),
    bucket: "backups",
    prefix: "team",
    region: "us-east-1",
    accessKeyId: accessKey,
    secretAccessKey: secretKey,
  };
  for (let i = 0; ; i++) {
    try {
      await s3CreateBucket(bucket);
      break;
    } catch (e) {
      if (i > 50) throw e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((r) => server.once("exit", r));
      server.kill("SIGTERM");
      await exited;
    }
    rmSync(data, { recursive: true, force: true });
  };
  return { server, stop, bucket, env, accessKey, secretKey };
}
