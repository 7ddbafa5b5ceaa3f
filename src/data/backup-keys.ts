import { createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, type KeyObject, scryptSync } from "node:crypto";

/**
 * The key pair backups are sealed to: X25519, its private half derived from the login's
 * passphrase (scrypt), so every machine with the same login (credentials.json, or
 * PLATFORM_PASSPHRASE in CI) reads every backup, and a team that shares the login shares it.
 * What makes backups without the login (the agent beside an engine) holds only the public half:
 * it can seal, never open (backup-crypto.ts).
 */

/** scrypt's cost: about 50 ms and 32 MiB once per process, against guessing the passphrase from the public key. */
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
/** Fixed: the passphrase alone must give the same key anywhere. */
const SALT = "platform backup key pair v1";
/** PKCS #8 of an X25519 private key, up to its 32 bytes (RFC 8410). */
const PKCS8_PREFIX = Buffer.from("302e020100300506032b656e04220420", "hex");
/** SubjectPublicKeyInfo of an X25519 public key, up to its 32 bytes. */
const SPKI_PREFIX = Buffer.from("302a300506032b656e032100", "hex");

export interface BackupKeyPair {
  readonly privateKey: KeyObject;
  /** The public half, raw (32 bytes): what sealing needs, and what the agent is given. */
  readonly publicKey: Buffer;
}

const pairs = new Map<string, BackupKeyPair>();

/** The login's backup key pair, derived once per process. */
export function backupKeyPair(passphrase: string): BackupKeyPair {
  const known = pairs.get(passphrase);
  if (known) return known;
  const seed = scryptSync(Buffer.from(passphrase, "utf8"), SALT, 32, SCRYPT);
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
  const pair = { privateKey, publicKey: rawPublicKey(createPublicKey(privateKey)) };
  pairs.set(passphrase, pair);
  return pair;
}

export function rawPublicKey(key: KeyObject): Buffer {
  return Buffer.from(key.export({ format: "der", type: "spki" }).subarray(SPKI_PREFIX.length));
}

export function publicKeyObject(raw: Buffer): KeyObject {
  if (raw.length !== 32) throw new Error(`an X25519 public key is 32 bytes, not ${raw.length}`);
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: "der", type: "spki" });
}

/** A fresh key pair for one backup (its public half goes into the file). */
export function ephemeralKeyPair(): { privateKey: KeyObject; publicKey: Buffer } {
  const { privateKey, publicKey } = generateKeyPairSync("x25519");
  return { privateKey, publicKey: rawPublicKey(publicKey) };
}

/** The X25519 shared secret of one side's private key and the other's raw public key. */
export function sharedSecret(privateKey: KeyObject, otherPublic: Buffer): Buffer {
  return diffieHellman({ privateKey, publicKey: publicKeyObject(otherPublic) });
}

/** How a public key is written where people and the agent read it: base64url, 43 characters. */
export const encodePublicKey = (raw: Buffer) => raw.toString("base64url");
export const decodePublicKey = (text: string) => {
  const raw = Buffer.from(text.trim(), "base64url");
  publicKeyObject(raw);
  return raw;
};
