import { createDecipheriv, pbkdf2 } from "node:crypto";
import { promisify } from "node:util";
import { SIG_KEY } from "../provider/contract/wire.js";

/**
 * Pulumi's passphrase secrets, read without its CLI (what sdk/go/common/resource/config/crypt.go
 * and pkg/secrets/passphrase do): AES-256-GCM under a key of 1,000,000 rounds of PBKDF2-SHA256
 * over the passphrase and the stack's salt. A value is `v1:<nonce>:<ciphertext and tag>`, in
 * base64; the salt's state is `v1:<salt>:<the word "pulumi", encrypted>`, the passphrase's check.
 */
const ROUNDS = 1_000_000;
const TAG_BYTES = 16;

function decryptWith(key: Buffer, value: string): string {
  const [version, nonce, sealed] = value.split(":");
  if (version !== "v1" || nonce === undefined || sealed === undefined) throw new Error("not a v1 ciphertext");
  const bytes = Buffer.from(sealed, "base64");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(nonce, "base64"));
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString("utf8");
}

/**
 * A decrypter for the secrets of a checkpoint whose secrets provider has this salt state, or
 * undefined when the passphrase is not the stack's (its check does not decrypt to "pulumi").
 * The key's derivation runs on libuv's thread pool (about 0.2 s), not on the event loop.
 */
export async function passphraseDecrypter(passphrase: string, saltState: string): Promise<((value: string) => string) | undefined> {
  const first = saltState.indexOf(":");
  const second = saltState.indexOf(":", first + 1);
  if (saltState.slice(0, first) !== "v1" || second < 0) return undefined;
  const salt = Buffer.from(saltState.slice(first + 1, second), "base64");
  const key = await promisify(pbkdf2)(passphrase, salt, ROUNDS, 32, "sha256");
  try {
    if (decryptWith(key, saltState.slice(second + 1)) !== "pulumi") return undefined;
  } catch {
    return undefined;
  }
  return (value) => decryptWith(key, value);
}

/** A checkpoint's secret value ({SIG, ciphertext}) in clear, or undefined when it is not one. */
export function revealSecret(value: unknown, decrypt: (value: string) => string): unknown {
  if (typeof value !== "object" || value === null || !(SIG_KEY in value)) return undefined;
  const ciphertext = (value as { ciphertext?: unknown }).ciphertext;
  return typeof ciphertext === "string" ? JSON.parse(decrypt(ciphertext)) : undefined;
}
