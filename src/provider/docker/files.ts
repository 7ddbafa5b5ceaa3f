import { posix } from "node:path";
import type Docker from "dockerode";
import { isNotFound } from "../../docker-client.js";
import type { ContainerFile } from "../contract/docker-inputs.js";

export type { ContainerFile };

/** Writes a container's files (ContainerFile) through the Engine API, as a tar archive: never an image layer, never a host file. */

const BLOCK = 512;

function octal(n: number, width: number): string {
  return `${n.toString(8).padStart(width - 1, "0")}\0`;
}

/** One ustar header of a regular file (POSIX 1003.1-1988): names of up to 100 bytes, which is all the platform writes. */
function header(name: string, e: { size: number; mode: number; uid: number; gid: number }): Buffer {
  if (Buffer.byteLength(name) > 100) throw new Error(`tar: the path ${name} is longer than 100 bytes`);
  const h = Buffer.alloc(BLOCK);
  h.write(name, 0, "utf8");
  h.write(octal(e.mode, 8), 100, "ascii");
  h.write(octal(e.uid, 8), 108, "ascii");
  h.write(octal(e.gid, 8), 116, "ascii");
  h.write(octal(e.size, 12), 124, "ascii");
  h.write(octal(Math.floor(Date.now() / 1000), 12), 136, "ascii");
  h.write("        ", 148, "ascii");
  h.write("0", 156, "ascii");
  h.write("ustar\u000000", 257, "ascii");
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "ascii");
  return h;
}

/**
 * A tar archive of the files, paths relative to the root, for PUT /containers/{id}/archive?path=/.
 * The engine keeps the headers' owners (copyUIDGID would instead give every file to the
 * container's USER, looked up with getent in an image that may not have it). No directory entries: the engine makes missing parents (root, 0755) and an
 * entry for an existing one (/etc) would change its owner and mode.
 */
export function buildTar(files: readonly (ContainerFile & { uid: number; gid: number })[]): Buffer {
  const parts: Buffer[] = [];
  for (const f of files) {
    if (!posix.isAbsolute(f.path)) throw new Error(`a container file's path must be absolute: ${f.path}`);
    const body = Buffer.from(f.content, "utf8");
    parts.push(header(posix.normalize(f.path).slice(1), { size: body.length, mode: f.mode, uid: f.uid, gid: f.gid }));
    parts.push(body, Buffer.alloc((BLOCK - (body.length % BLOCK)) % BLOCK));
  }
  parts.push(Buffer.alloc(2 * BLOCK));
  return Buffer.concat(parts);
}

/** The content of the first regular file in a tar archive (what GET /archive returns for one file). */
export function firstFileOfTar(tar: Buffer): string {
  if (tar.length < BLOCK) throw new Error("tar: archive shorter than one header");
  const size = Number.parseInt(tar.subarray(124, 136).toString("ascii").replace(/\0.*$/s, "").trim() || "0", 8);
  return tar.subarray(BLOCK, BLOCK + size).toString("utf8");
}

/** uid and gid of a user in an /etc/passwd text. */
export function lookupUser(passwd: string, name: string): { uid: number; gid: number } | undefined {
  for (const line of passwd.split("\n")) {
    const [user, , uid, gid] = line.split(":");
    if (user === name && uid !== undefined && gid !== undefined) return { uid: Number(uid), gid: Number(gid) };
  }
  return undefined;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks);
}

/** The image's /etc/passwd, read from the created container; an image without one is said plainly. */
async function readPasswd(container: Docker.Container, image: string): Promise<string> {
  try {
    return firstFileOfTar(await readAll(await container.getArchive({ path: "/etc/passwd" })));
  } catch (e) {
    if (!isNotFound(e)) throw e;
    throw new Error(`the image ${image} has no /etc/passwd: the platform gives a database's TLS key to its postgres user, named there`);
  }
}

/** Writes the files into a created (not yet started) container, owners looked up in its own /etc/passwd. */
export async function putFiles(container: Docker.Container, files: readonly ContainerFile[], image: string): Promise<void> {
  if (files.length === 0) return;
  let passwd: string | undefined;
  const owned = [];
  for (const f of files) {
    let ids = { uid: 0, gid: 0 };
    if (f.owner && f.owner !== "root") {
      passwd ??= await readPasswd(container, image);
      const found = lookupUser(passwd, f.owner);
      if (!found)
        throw new Error(
          `the image ${image} has no user "${f.owner}" (in its /etc/passwd) to own ${f.path}: use an image that has one (the official postgres image and the platform's have "postgres"; PLATFORM_POSTGRES_IMAGE picks it)`,
        );
      ids = found;
    }
    owned.push({ ...f, ...ids });
  }
  await container.putArchive(buildTar(owned), { path: "/" });
}
