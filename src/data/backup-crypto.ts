import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import { createReadStream, openSync, readSync, closeSync, statSync } from "node:fs";

/**
 * A backup at rest: AES-256-GCM, with a key derived (HKDF-SHA256) from the login's passphrase
 * and a random salt per backup. The file holds the salt and the nonce, never the key: whoever
 * has the file alone has nothing to decrypt it with; the same login (credentials.json, or
 * PLATFORM_PASSPHRASE in CI) on any machine reads it back, also after `destroy --delete-data`.
 *
 * Layout: MAGIC (8) | salt (16) | nonce (12) | ciphertext | tag (16).
 */
export const MAGIC = Buffer.from("PLATBK01", "latin1");
const SALT = 16;
const NONCE = 12;
const TAG = 16;
export const HEADER_BYTES = MAGIC.length + SALT + NONCE;
const INFO = "platform db backup v1";

export function backupKey(passphrase: string, salt: Buffer): Buffer {
  return Buffer.from(hkdfSync("sha256", Buffer.from(passphrase, "utf8"), salt, INFO, 32));
}

export interface Sealed {
  bytes: number;
  sha256: string;
}

/**
 * Encrypts `source` chunk by chunk; `done` resolves with the size and SHA-256 of what was
 * yielded (the encrypted file) once the source ended.
 */
export function encryptStream(
  source: AsyncIterable<Buffer>,
  passphrase: string,
): { chunks: AsyncGenerator<Buffer>; done: Promise<Sealed> } {
  let finish: (s: Sealed) => void = () => undefined;
  const done = new Promise<Sealed>((r) => {
    finish = r;
  });
  async function* chunks(): AsyncGenerator<Buffer> {
    const salt = randomBytes(SALT);
    const nonce = randomBytes(NONCE);
    const cipher = createCipheriv("aes-256-gcm", backupKey(passphrase, salt), nonce);
    const hash = createHash("sha256");
    let bytes = 0;
    const out = (b: Buffer) => {
      hash.update(b);
      bytes += b.length;
      return b;
    };
    yield out(Buffer.concat([MAGIC, salt, nonce]));
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
  if (size < HEADER_BYTES + TAG) throw new BackupDecryptError(`${file} is too short to be a backup (${size} bytes)`);
  const head = Buffer.alloc(HEADER_BYTES);
  const tag = Buffer.alloc(TAG);
  const fd = openSync(file, "r");
  try {
    readSync(fd, head, 0, HEADER_BYTES, 0);
    readSync(fd, tag, 0, TAG, size - TAG);
  } finally {
    closeSync(fd);
  }
  if (!head.subarray(0, MAGIC.length).equals(MAGIC)) throw new BackupDecryptError(`${file} is not a platform backup`);
  const salt = head.subarray(MAGIC.length, MAGIC.length + SALT);
  const nonce = head.subarray(MAGIC.length + SALT);
  const decipher = createDecipheriv("aes-256-gcm", backupKey(passphrase, salt), nonce);
  decipher.setAuthTag(tag);
  if (size > HEADER_BYTES + TAG)
    for await (const c of createReadStream(file, { start: HEADER_BYTES, end: size - TAG - 1 })) {
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
