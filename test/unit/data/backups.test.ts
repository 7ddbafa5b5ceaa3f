import { randomBytes } from "node:crypto";
import { readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../../fixtures/temp-home.js";
import { createCipheriv } from "node:crypto";
import { backupKey, decryptFile, encryptStream, HEADER_BYTES, MAGIC, type SealTo } from "../../../src/data/backup-crypto.js";
import { backupKeyPair, decodePublicKey, encodePublicKey } from "../../../src/data/backup-keys.js";
import { countDifferences } from "../../../src/data/db-backup.js";
import { parseCounts } from "../../../src/runtime/pg-verify.js";
import {
  type BackupRecord,
  backupDir,
  chooseExpired,
  commitBackup,
  listBackups,
  newBackupId,
  partialFile,
  removeLeftovers,
} from "../../../src/data/backups.js";

async function seal(plain: Buffer, pass: SealTo, file: string) {
  const s = encryptStream(Readable.from([plain.subarray(0, 1000), plain.subarray(1000)]), pass);
  const parts: Buffer[] = [];
  for await (const c of s.chunks) parts.push(c);
  writeFileSync(file, Buffer.concat(parts));
  return s.done;
}

async function open(file: string, pass: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of decryptFile(file, pass)) parts.push(c);
  return Buffer.concat(parts);
}

describe("backup encryption", () => {
  const dir = tempDir("bk-crypto-");
  const plain = randomBytes(70_000);

  it("round-trips with the same passphrase; the file holds neither the key nor the passphrase", async () => {
    const f = join(dir, "a");
    const sealed = await seal(plain, "the passphrase", f);
    const bytes = readFileSync(f);
    expect(sealed.bytes).toBe(bytes.length);
    expect(bytes.length).toBe(plain.length + HEADER_BYTES + 16);
    expect(bytes.includes(Buffer.from("the passphrase"))).toBe(false);
    expect(bytes.includes(plain.subarray(0, 64))).toBe(false);
    expect((await open(f, "the passphrase")).equals(plain)).toBe(true);
  });

  it("refuses another passphrase, a changed byte and a file cut short", async () => {
    const f = join(dir, "b");
    await seal(plain, "p1", f);
    await expect(open(f, "p2")).rejects.toThrow(/does not decrypt/);
    const bytes = readFileSync(f);
    bytes[5000] = (bytes[5000] ?? 0) ^ 1;
    writeFileSync(join(dir, "c"), bytes);
    await expect(open(join(dir, "c"), "p1")).rejects.toThrow(/does not decrypt/);
    writeFileSync(join(dir, "d"), readFileSync(f).subarray(0, 40_000));
    await expect(open(join(dir, "d"), "p1")).rejects.toThrow(/does not decrypt/);
    writeFileSync(join(dir, "e"), Buffer.from("not a backup at all, just some text here, long enough to have a header and a tag"));
    await expect(open(join(dir, "e"), "p1")).rejects.toThrow(/not a platform backup/);
  });

  it("two backups of the same data differ (salt and nonce per backup)", async () => {
    const a = await seal(plain, "p", join(dir, "x"));
    const b = await seal(plain, "p", join(dir, "y"));
    expect(a.sha256).not.toBe(b.sha256);
  });

  it("sealed to the public key alone (what the agent holds), it opens with the passphrase and nothing else", async () => {
    const pair = backupKeyPair("the login's passphrase");
    // the public key as the agent is given it: text, decoded back
    const publicKey = decodePublicKey(encodePublicKey(pair.publicKey));
    const f = join(dir, "pk");
    await seal(plain, { publicKey }, f);
    const bytes = readFileSync(f);
    expect(bytes.includes(publicKey)).toBe(false);
    expect((await open(f, "the login's passphrase")).equals(plain)).toBe(true);
    await expect(open(f, "another passphrase")).rejects.toThrow(/does not decrypt/);
    // the same passphrase gives the same key pair anywhere; another gives another
    expect(backupKeyPair("the login's passphrase").publicKey.equals(publicKey)).toBe(true);
    expect(backupKeyPair("another passphrase").publicKey.equals(publicKey)).toBe(false);
  });

  it("a backup made before sealing to a public key (v1: the key from the passphrase and a salt) still opens", async () => {
    const salt = Buffer.alloc(16, 7);
    const nonce = Buffer.alloc(12, 9);
    const cipher = createCipheriv("aes-256-gcm", backupKey("old pass", salt), nonce);
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    const f = join(dir, "v1");
    writeFileSync(f, Buffer.concat([MAGIC, salt, nonce, body, cipher.getAuthTag()]));
    expect((await open(f, "old pass")).equals(plain)).toBe(true);
    await expect(open(f, "new pass")).rejects.toThrow(/does not decrypt/);
  });
});

describe("backup store", () => {
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env.PLATFORM_BACKUP_DIR;
    process.env.PLATFORM_BACKUP_DIR = tempDir("bk-store-");
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.PLATFORM_BACKUP_DIR;
    else process.env.PLATFORM_BACKUP_DIR = saved;
  });

  const record = (id: string, kind: BackupRecord["kind"], createdAt: string, bytes: number): BackupRecord => ({
    id,
    project: "p",
    env: "e",
    service: "database",
    kind,
    startedAt: createdAt,
    createdAt,
    bytes,
    sha256: "0",
  });

  it("ids carry the service and the time, nothing else", () => {
    expect(newBackupId("database", new Date("2026-11-26T10:41:00.123Z"))).toMatch(/^database-20261126T104100Z-[0-9a-f]{4}$/);
  });

  it("lists only committed backups whose file has the recorded size", () => {
    const good = partialFile("p", "e", "database", "database-1");
    writeFileSync(good, "12345");
    commitBackup(good, record("database-1", "manual", "2026-11-26T10:00:00Z", 5));
    // cut short: a temporary file that was never committed
    writeFileSync(partialFile("p", "e", "database", "database-2"), "123");
    // a record whose file is shorter than recorded
    const short = partialFile("p", "e", "database", "database-3");
    writeFileSync(short, "12");
    commitBackup(short, record("database-3", "manual", "2026-11-26T11:00:00Z", 9));
    expect(listBackups("p", "e").map((r) => r.id)).toEqual(["database-1"]);
    expect(listBackups("p", "e", "database").map((r) => r.id)).toEqual(["database-1"]);
  });

  it("removes temporary files of processes that are gone and unrecorded dumps older than a minute", () => {
    const dir = backupDir("p", "e", "database");
    const mine = partialFile("p", "e", "database", "database-4");
    writeFileSync(mine, "x");
    writeFileSync(join(dir, "database-5.partial-999999999"), "x");
    writeFileSync(join(dir, "database-6.pgdump.enc"), "x");
    const old = new Date(Date.now() - 120_000);
    utimesSync(join(dir, "database-6.pgdump.enc"), old, old);
    writeFileSync(join(dir, "database-7.pgdump.enc"), "x");
    expect(removeLeftovers("p", "e", "database").sort()).toEqual(["database-5.partial-999999999", "database-6.pgdump.enc"]);
  });

  it("retention keeps the newest N, and the newest N safety backups apart", () => {
    const rs = [
      record("m1", "manual", "2026-11-20T00:00:00Z", 1),
      record("s1", "scheduled", "2026-11-21T00:00:00Z", 1),
      record("f1", "safety", "2026-11-22T00:00:00Z", 1),
      record("m2", "manual", "2026-11-23T00:00:00Z", 1),
      record("f2", "safety", "2026-11-24T00:00:00Z", 1),
      record("s2", "scheduled", "2026-11-25T00:00:00Z", 1),
    ];
    expect(chooseExpired(rs, 2).map((r) => r.id)).toEqual(["s1", "m1"]);
    expect(chooseExpired(rs, 1).map((r) => r.id)).toEqual(["m2", "s1", "m1", "f1"]);
  });

  it("a backup made before a major upgrade counts with the safety backups", () => {
    const rs = [
      record("m1", "manual", "2026-11-20T00:00:00Z", 1),
      record("u1", "upgrade", "2026-11-21T00:00:00Z", 1),
      record("m2", "manual", "2026-11-22T00:00:00Z", 1),
      record("f1", "safety", "2026-11-23T00:00:00Z", 1),
    ];
    expect(chooseExpired(rs, 1).map((r) => r.id)).toEqual(["m1", "u1"]);
    expect(chooseExpired(rs, 2).map((r) => r.id)).toEqual([]);
  });
});

describe("a backup proven by a real restore (data/db-backup.ts, runtime/pg-verify.ts)", () => {
  it("reads psql's counts, table|count a line, names with dots and spaces kept", () => {
    expect([...parseCounts("public.a|1000\ns2.B b|2\n\n").entries()]).toEqual([
      ["public.a", 1000],
      ["s2.B b", 2],
    ]);
  });

  it("says every table whose restored count differs, or that one side lacks", () => {
    const source = new Map([
      ["public.a", 3],
      ["public.b", 2],
      ["public.c", 0],
    ]);
    expect(countDifferences(source, new Map(source))).toEqual([]);
    expect(
      countDifferences(
        source,
        new Map([
          ["public.a", 3],
          ["public.b", 1],
          ["public.d", 5],
        ]),
      ),
    ).toEqual([
      "public.b: 2 in the database, 1 restored",
      "public.c: 0 in the database, no table restored",
      "public.d: no table in the database, 5 restored",
    ]);
  });
});
