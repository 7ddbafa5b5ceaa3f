import { describe, expect, it } from "vitest";
import { passphraseDecrypter, revealSecret } from "../../../src/engine/state-secrets.js";
import { SIG_KEY as SECRET_SIG } from "../../../src/provider/wire.js";

/**
 * Made by Pulumi 3.259's own CLI (`PULUMI_CONFIG_PASSPHRASE=correct-horse-battery pulumi config
 * set --secret buildEnv '{...}'` on a file backend): the stack's salt and one secret.
 */
const SALT = "v1:512QLMre0n0=:v1:K0dWiWuyrVFnSf8q:9w2Yw3g7b2xIRJEf94kfK21HioP0sg==";
const CIPHERTEXT =
  "v1:J3eQSeo7Z8qKtdA7:Ly9jP1msjJDondIZ1iYfKWBuIr1YaBtWRTxWChTtvWx80tl6ze0Pq9XEWM6FhB2pYa97TGQXlKP3NMd6DOVSNcT0U21t1aaO4+ZHHM4kwGNd9cmMUGArI+6i";
const PLAIN = { DATABASE_URL: "postgresql://app:s3cret@database:5432/app", MODE: "it's" };

describe("Pulumi's passphrase secrets, read without its CLI", () => {
  it("decrypts what Pulumi encrypted, with the stack's passphrase", async () => {
    const decrypt = await passphraseDecrypter("correct-horse-battery", SALT);
    expect(decrypt).toBeDefined();
    expect(JSON.parse(decrypt!(CIPHERTEXT))).toEqual(PLAIN);
    expect(revealSecret({ [SECRET_SIG]: "1b47061264138c4ac30d75fd1eb44270", ciphertext: CIPHERTEXT }, decrypt!)).toEqual(PLAIN);
  });

  it("refuses another passphrase, and a salt state of another version", async () => {
    expect(await passphraseDecrypter("wrong", SALT)).toBeUndefined();
    expect(await passphraseDecrypter("correct-horse-battery", SALT.replace(/^v1/, "v2"))).toBeUndefined();
  });

  it("a tampered ciphertext fails its tag; a value that is no secret reveals nothing", async () => {
    const decrypt = (await passphraseDecrypter("correct-horse-battery", SALT))!;
    const [v, nonce, sealed] = CIPHERTEXT.split(":");
    const bytes = Buffer.from(sealed as string, "base64");
    bytes[0] = (bytes[0] as number) ^ 1;
    expect(() => decrypt(`${v}:${nonce}:${bytes.toString("base64")}`)).toThrow();
    expect(revealSecret("plain", decrypt)).toBeUndefined();
    expect(revealSecret({ ciphertext: CIPHERTEXT }, decrypt)).toBeUndefined();
  });
});
