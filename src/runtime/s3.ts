import { createReadStream, createWriteStream, statSync } from "node:fs";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { pipeline } from "node:stream/promises";
import aws4 from "aws4";

/**
 * The few S3 calls backups need (PUT, GET, list, create bucket), signed with AWS Signature
 * Version 4 by the aws4 package, over Node's own http(s): any S3-compatible server
 * (AWS, versitygw, MinIO, SeaweedFS...), path-style addressing (`https://host/bucket/key`).
 * The keys go in the signature only, never in a URL or a message.
 */
export interface S3Location {
  endpoint: URL;
  bucket: string;
  prefix: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/**
 * From the environment: PLATFORM_BACKUP_S3=https://host[:port]/bucket[/prefix], keys from
 * PLATFORM_BACKUP_S3_ACCESS_KEY / PLATFORM_BACKUP_S3_SECRET_KEY (else AWS_ACCESS_KEY_ID /
 * AWS_SECRET_ACCESS_KEY), region from PLATFORM_BACKUP_S3_REGION (else AWS_REGION, us-east-1).
 */
export function s3FromEnv(env: NodeJS.ProcessEnv = process.env): S3Location | undefined {
  const raw = env.PLATFORM_BACKUP_S3;
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`PLATFORM_BACKUP_S3 "${raw}" is not a URL: write https://host[:port]/bucket[/prefix]`);
  }
  if (url.username || url.password)
    throw new Error("PLATFORM_BACKUP_S3 must not carry keys: set PLATFORM_BACKUP_S3_ACCESS_KEY and PLATFORM_BACKUP_S3_SECRET_KEY");
  const [bucket, ...prefix] = url.pathname.split("/").filter(Boolean);
  if (!bucket) throw new Error(`PLATFORM_BACKUP_S3 "${raw}" names no bucket: write https://host[:port]/bucket[/prefix]`);
  const accessKeyId = env.PLATFORM_BACKUP_S3_ACCESS_KEY ?? env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.PLATFORM_BACKUP_S3_SECRET_KEY ?? env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey)
    throw new Error("PLATFORM_BACKUP_S3 is set but its keys are not: set PLATFORM_BACKUP_S3_ACCESS_KEY and PLATFORM_BACKUP_S3_SECRET_KEY");
  return {
    endpoint: new URL(url.origin),
    bucket,
    prefix: prefix.join("/"),
    region: env.PLATFORM_BACKUP_S3_REGION ?? env.AWS_REGION ?? "us-east-1",
    accessKeyId,
    secretAccessKey,
  };
}

/** Where the location points, for messages: no keys. */
export function s3Label(l: S3Location): string {
  return `${l.endpoint.origin}/${l.bucket}${l.prefix ? `/${l.prefix}` : ""}`;
}

const encodeKey = (key: string) => key.split("/").map(encodeURIComponent).join("/");

function send(
  l: S3Location,
  method: string,
  path: string,
  opts: { query?: string; body?: NodeJS.ReadableStream; length?: number } = {},
): Promise<IncomingMessage> {
  const headers: Record<string, string | number> = { "X-Amz-Content-Sha256": "UNSIGNED-PAYLOAD" };
  if (opts.length !== undefined) headers["Content-Length"] = opts.length;
  const signed = aws4.sign(
    {
      host: l.endpoint.host,
      method,
      path: `${path}${opts.query ? `?${opts.query}` : ""}`,
      service: "s3",
      region: l.region,
      headers,
    },
    { accessKeyId: l.accessKeyId, secretAccessKey: l.secretAccessKey },
  );
  const request = l.endpoint.protocol === "http:" ? httpRequest : httpsRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        protocol: l.endpoint.protocol,
        hostname: l.endpoint.hostname,
        port: l.endpoint.port || undefined,
        method,
        path: signed.path,
        headers: signed.headers as Record<string, string>,
        timeout: 120_000,
      },
      resolve,
    );
    req.on("error", reject);
    req.on("timeout", () => req.destroy(new Error(`${method} ${path}: no answer from ${l.endpoint.origin} in 120 s`)));
    if (opts.body) opts.body.pipe(req);
    else req.end();
  });
}

async function text(res: IncomingMessage): Promise<string> {
  let s = "";
  for await (const c of res) s += c;
  return s;
}

async function expectOk(res: IncomingMessage, what: string): Promise<string> {
  const body = await text(res);
  if (res.statusCode && res.statusCode < 300) return body;
  const code = /<Code>([^<]+)<\/Code>/.exec(body)?.[1];
  throw new Error(`${what}: HTTP ${res.statusCode}${code ? ` ${code}` : ""}`);
}

const objectPath = (l: S3Location, key: string) => `/${l.bucket}/${encodeKey(l.prefix ? `${l.prefix}/${key}` : key)}`;

export async function s3CreateBucket(l: S3Location): Promise<void> {
  const res = await send(l, "PUT", `/${l.bucket}`);
  const body = await text(res);
  if ((res.statusCode ?? 500) >= 300 && !/BucketAlreadyOwnedByYou|BucketAlreadyExists/.test(body))
    throw new Error(`creating bucket ${l.bucket}: HTTP ${res.statusCode}`);
}

export async function s3PutFile(l: S3Location, key: string, file: string): Promise<void> {
  const res = await send(l, "PUT", objectPath(l, key), { body: createReadStream(file), length: statSync(file).size });
  await expectOk(res, `uploading ${key} to ${s3Label(l)}`);
}

export async function s3PutText(l: S3Location, key: string, body: string): Promise<void> {
  const { Readable } = await import("node:stream");
  const buf = Buffer.from(body, "utf8");
  const res = await send(l, "PUT", objectPath(l, key), { body: Readable.from([buf]), length: buf.length });
  await expectOk(res, `uploading ${key} to ${s3Label(l)}`);
}

export async function s3GetText(l: S3Location, key: string): Promise<string> {
  return expectOk(await send(l, "GET", objectPath(l, key)), `reading ${key} from ${s3Label(l)}`);
}

export async function s3GetFile(l: S3Location, key: string, file: string): Promise<void> {
  const res = await send(l, "GET", objectPath(l, key));
  if ((res.statusCode ?? 500) >= 300) await expectOk(res, `downloading ${key} from ${s3Label(l)}`);
  await pipeline(res, createWriteStream(file, { mode: 0o600 }));
}

/** Keys (relative to the location's prefix) and sizes under `under`, every page. */
export async function s3List(l: S3Location, under: string): Promise<{ key: string; size: number }[]> {
  const full = l.prefix ? `${l.prefix}/${under}` : under;
  const out: { key: string; size: number }[] = [];
  let token: string | undefined;
  do {
    const q = [
      ...(token ? [`continuation-token=${encodeURIComponent(token)}`] : []),
      "list-type=2",
      `prefix=${encodeURIComponent(full)}`,
    ].join("&");
    const body = await expectOk(await send(l, "GET", `/${l.bucket}`, { query: q }), `listing ${s3Label(l)}`);
    for (const m of body.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
      const key = /<Key>([^<]*)<\/Key>/.exec(m[1] ?? "")?.[1];
      const size = Number(/<Size>(\d+)<\/Size>/.exec(m[1] ?? "")?.[1] ?? -1);
      if (key) out.push({ key: (l.prefix ? key.slice(l.prefix.length + 1) : key).replace(/&amp;/g, "&"), size });
    }
    token = /<IsTruncated>true<\/IsTruncated>/.test(body) ? /<NextContinuationToken>([^<]+)</.exec(body)?.[1] : undefined;
  } while (token);
  return out;
}
