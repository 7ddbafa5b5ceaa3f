import { describe, expect, it } from "vitest";
import { s3FromEnv, s3Label } from "../../../src/runtime/s3.js";

describe("PLATFORM_BACKUP_S3", () => {
  const keys = { PLATFORM_BACKUP_S3_ACCESS_KEY: "AK", PLATFORM_BACKUP_S3_SECRET_KEY: "SK" };

  it("unset: no bucket", () => {
    expect(s3FromEnv({})).toBeUndefined();
  });

  it("endpoint, bucket, prefix and region; keys from the platform's names, else AWS's", () => {
    const l = s3FromEnv({ PLATFORM_BACKUP_S3: "https://s3.example.com:9000/backups/team/a", ...keys });
    expect(l).toMatchObject({ bucket: "backups", prefix: "team/a", region: "us-east-1", accessKeyId: "AK", secretAccessKey: "SK" });
    expect(l?.endpoint.origin).toBe("https://s3.example.com:9000");
    expect(s3Label(l as NonNullable<typeof l>)).toBe("https://s3.example.com:9000/backups/team/a");
    const aws = s3FromEnv({
      PLATFORM_BACKUP_S3: "http://127.0.0.1:7070/b",
      AWS_ACCESS_KEY_ID: "A2",
      AWS_SECRET_ACCESS_KEY: "S2",
      AWS_REGION: "eu-west-3",
    });
    expect(aws).toMatchObject({ bucket: "b", prefix: "", region: "eu-west-3", accessKeyId: "A2" });
  });

  it("refuses what cannot work, saying how to write it; never keys in the URL", () => {
    expect(() => s3FromEnv({ PLATFORM_BACKUP_S3: "not a url", ...keys })).toThrow(/is not a URL: write https:\/\/host/);
    expect(() => s3FromEnv({ PLATFORM_BACKUP_S3: "https://s3.example.com/", ...keys })).toThrow(/names no bucket/);
    expect(() => s3FromEnv({ PLATFORM_BACKUP_S3: "https://AK:SK@s3.example.com/b", ...keys })).toThrow(/must not carry keys/);
    expect(() => s3FromEnv({ PLATFORM_BACKUP_S3: "https://s3.example.com/b" })).toThrow(/its keys are not/);
  });
});
