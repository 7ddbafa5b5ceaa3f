import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import { createReadStream, openSync, readSync, closeSync, statSync } from "node:fs";
import { backupKeyPair, ephemeralKeyPair, sharedSecret } from "./backup-keys.js";

/**
 * A backup at rest: AES-256-GCM, sealed to the login's public key (backup-keys.ts): each backup
 * has a fresh X25519 key pair whose shared secret with the login's key, through HKDF-SHA256 with
 * a random salt, is its content key; the file holds the fresh public half, the salt and the
 * nonce, never a key. So what makes a backup needs only the public key (the agent beside an
 * engine), and only the login (credentials.json, or PLATFORM_PASSPHRASE in CI) reads it back, on
 * any machine, also after `destroy --delete-data`.
 *
 * Layout (v2): MAGIC2 (8) | the backup's public key (32) | salt (16) | nonce (12) | ciphertext | tag (16).
 * Backups of v1 (before 2026-12-07: the key derived from the passphrase itself, HKDF-SHA256 with
 * the salt) stay readable: MAGIC (8) | salt (16) | nonce (12) | ciphertext | tag (16).
 */
export const MAGIC = Buffer.from("PLATBK01", "latin1");
export const MAGIC2 = Buffer.from("PLATBK02", "latin1");
const EPHEMERAL = 32;
const SALT = 16;
const NONCE = 12;
const TAG = 16;
export const HEADER_BYTES_V1 = MAGIC.length + SALT + NONCE;
export const HEADER_BYTES = MAGIC2.length + EPHEMERAL + SALT + NONCE;
const INFO = "platform db backup v1";
const INFO2 = "platform db backup v2";

/** What a backup is sealed to: the login's passphrase (its public key is derived), or a public key alone (the agent's). */
export type SealTo = string | { readonly publicKey: Buffer };

export function backupKey(passphrase: string, salt: Buffer): Buffer {
  return Buffer.from(hkdfSync("sha256", Buffer.from(passphrase, "utf8"), salt, INFO, 32));
}

/** The content key of a v2 backup, from the shared secret and both public keys. */
function contentKey(shared: Buffer, salt: Buffer, ephemeral: Buffer, recipient: Buffer): Buffer {
  return Buffer.from(hkdfSync("sha256", shared, salt, Buffer.concat([Buffer.from(INFO2), ephemeral, recipient]), 32));
}

export interface Sealed {
  bytes: number;
  sha256: string;
}

/**
 * Encrypts `source` chunk by chunk; `done` resolves with the size and SHA-256 of what was
 * yielded (the encrypted file) once the source ended.
 */
export function encryptStream(source: AsyncIterable<Buffer>, to: SealTo): { chunks: AsyncGenerator<Buffer>; done: Promise<Sealed> } {
  const recipient = typeof to === "string" ? backupKeyPair(to).publicKey : to.publicKey;
  let finish: (s: Sealed) => void = () => undefined;
  const done = new Promise<Sealed>((r) => {
    finish = r;
  });
  async function* chunks(): AsyncGenerator<Buffer> {
    const salt = randomBytes(SALT);
    const nonce = randomBytes(NONCE);
    const mine = ephemeralKeyPair();
    const key = contentKey(sharedSecret(mine.privateKey, recipient), salt, mine.publicKey, recipient);
    const cipher = createCipheriv("aes-256-gcm", key, nonce);
    const hash = createHash("sha256");
    let bytes = 0;
    const out = (b: Buffer) => {
      hash.update(b);
      bytes += b.length;
      return b;
    };
    yield out(Buffer.concat([MAGIC2, mine.publicKey, salt, nonce]));
    for await (const c of source) {
      const e = cipher.update(c);
      if (e.length) yield out(e);
    }
    const last = cipher.final();
    if (last.length) yield out(last);
    yield out(cipher.getAuthTag());
    finish({ bytes, sha256: hash.digest("hex") });
  }
  return { chunks: chunks(), done };
}

export class BackupDecryptError extends Error {}

/**
 * The plain dump of an encrypted backup file, chunk by chunk. The last step checks the tag:
 * a file changed, cut short or sealed with another passphrase throws there, so a caller acts on
 * the whole only after the generator finished.
 */
export async function* decryptFile(file: string, passphrase: string): AsyncGenerator<Buffer> {
  const size = statSync(file).size;
  if (size < HEADER_BYTES_V1 + TAG) throw new BackupDecryptError(`${file} is too short to be a backup (${size} bytes)`);
  const fd = openSync(file, "r");
  const head = Buffer.alloc(Math.min(HEADER_BYTES, size - TAG));
  const tag = Buffer.alloc(TAG);
  try {
    readSync(fd, head, 0, head.length, 0);
    readSync(fd, tag, 0, TAG, size - TAG);
  } finally {
    closeSync(fd);
  }
  const magic = head.subarray(0, MAGIC.length);
  let key: Buffer;
  let nonce: Buffer;
  let start: number;
  if (magic.equals(MAGIC2) && head.length === HEADER_BYTES) {
    const ephemeral = head.subarray(MAGIC2.length, MAGIC2.length + EPHEMERAL);
    const salt = head.subarray(MAGIC2.length + EPHEMERAL, MAGIC2.length + EPHEMERAL + SALT);
    nonce = head.subarray(HEADER_BYTES - NONCE, HEADER_BYTES);
    const mine = backupKeyPair(passphrase);
    key = contentKey(sharedSecret(mine.privateKey, ephemeral), salt, ephemeral, mine.publicKey);
    start = HEADER_BYTES;
  } else if (magic.equals(MAGIC)) {
    const salt = head.subarray(MAGIC.length, MAGIC.length + SALT);
    nonce = head.subarray(MAGIC.length + SALT, HEADER_BYTES_V1);
    key = backupKey(passphrase, salt);
    start = HEADER_BYTES_V1;
  } else throw new BackupDecryptError(`${file} is not a platform backup`);
  const decipher = createDecipheriv("aes-256-gcm", key, nonce);
  decipher.setAuthTag(tag);
  if (size > start + TAG)
    for await (const c of createReadStream(file, { start, end: size - TAG - 1 })) {
      const p = decipher.update(c as Buffer);
      if (p.length) yield p;
    }
  try {
    const last = decipher.final();
    if (last.length) yield last;
  } catch {
    throw new BackupDecryptError(
      `${file} does not decrypt with this login's passphrase (made with another one, or changed since it was written)`,
    );
  }
}
