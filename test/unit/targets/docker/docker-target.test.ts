import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../../fixtures/temp-home.js";
import { reveal } from "../../../../src/provider/wire.js";
import { fullstackPlan } from "../../../fixtures/plans.js";

/** Component test with Pulumi mocks: which resources a plan becomes, with which inputs. */
interface Recorded {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
}
const recorded: Recorded[] = [];

pulumi.runtime.setMocks(
  {
    newResource: (args) => {
      recorded.push({ type: args.type, name: args.name, inputs: args.inputs });
      const computed: Record<string, unknown> = {
        words: "brave-otter",
        value: "s3cretpassw0rd",
        imageId: "sha256:abc",
        certPem: `CERT ${args.name}`,
        keyPem: `KEY ${args.name}`,
      };
      // A volume adopted under an older name: containers must mount the real one.
      if (args.type === "platform:docker:Volume")
        computed.volumeName = args.name.endsWith("-wal") ? args.inputs.name : "fullstack_preview_database_data-old";
      return { id: `${args.name}-id`, state: { ...args.inputs, ...computed } };
    },
    call: () => ({}),
  },
  "fullstack",
  "preview",
  false,
);

const byName = (name: string) => recorded.find((r) => r.name === name) as Recorded;
const unwrap = async <T>(o: pulumi.Output<T>) =>
  new Promise<T>((r) =>
    o.apply((v) => {
      r(v);
      return v;
    }),
  );
let outputs: Record<string, pulumi.Output<string>> = {};

describe("docker target (mocked engine)", () => {
  beforeAll(async () => {
    const { createDockerTarget } = await import("../../../../src/targets/docker/index.js");
    outputs = createDockerTarget(await fullstackPlan(), { buildEnvKey: Buffer.alloc(32, 1), logDir: tempDir("logs-") });
    await unwrap(outputs.web_external_url as pulumi.Output<string>);
    await new Promise((r) => setTimeout(r, 50));
  });

  it("creates one network, url words, the edge attachment, and per service its resources", () => {
    expect(recorded.map((r) => `${r.type} ${r.name}`).sort()).toEqual([
      "platform:docker:Container api",
      "platform:docker:Container database",
      "platform:docker:Container web",
      "platform:docker:EdgeAttachment edge",
      "platform:docker:Image api-image",
      "platform:docker:Image web-image",
      "platform:docker:Job api-migrate",
      "platform:docker:Network network",
      "platform:docker:Volume database-data",
      "platform:docker:Volume database-wal",
      "platform:random:Password database-password",
      "platform:random:Words url-words",
      "platform:tls:CertificateAuthority database-ca",
      "platform:tls:ServerCertificate database-tls",
    ]);
    expect(byName("edge").inputs).toMatchObject({
      network: "fullstack_preview",
      image: "platform-local/caddy:2.11",
      httpsPort: 443,
      appsDomain: "localhost",
    });
  });

  it("wires references: the connection string, internal and public URLs", () => {
    const api = byName("api").inputs;
    // Service variables travel as one secret: any of them may carry a credential.
    expect(api.env).toMatchObject({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" });
    expect(reveal(api.env)).toMatchObject({
      PORT: "8080",
      DATABASE_URL: "postgresql://app:s3cretpassw0rd@database:5432/app",
      CORS_ORIGINS: "https://fullstack-web-brave-otter.localhost",
    });
    expect(reveal(byName("web").inputs.env)).toMatchObject({ API_URL: "http://api:8080", PORT: "8080" });
    expect(byName("api-migrate").inputs).toMatchObject({ command: ["alembic", "upgrade", "head"], image: api.image, timeoutSeconds: 300 });
  });

  it("replaces the services that reference a database with its container: a new server is no idle pooled connection's", () => {
    expect(byName("api").inputs.databases).toEqual(["database-id"]);
    expect(byName("web").inputs.databases).toBeUndefined();
    expect(byName("database").inputs.databases).toBeUndefined();
  });

  it("gives public services their edge alias, and the database none", () => {
    expect(byName("api").inputs.networks).toEqual([{ name: "fullstack_preview", aliases: ["api", "fullstack-api-brave-otter.edge"] }]);
    expect(byName("database").inputs.networks).toEqual([{ name: "fullstack_preview", aliases: ["database"] }]);
    expect(byName("database").inputs).toMatchObject({
      stopFirst: true,
      volumes: [
        { name: "fullstack_preview_database_data-old", target: "/var/lib/postgresql/data" },
        { name: "fullstack_preview_database_wal", target: "/var/lib/postgresql/wal-archive" },
      ],
    });
    // The server archives its WAL into its own volume, told apart from the data by a role label.
    expect((byName("database").inputs.command as string[]).slice(0, 4)).toEqual([
      "sh",
      "-c",
      'install -d -o postgres -g postgres -m 0700 "$0" && exec docker-entrypoint.sh "$@"',
      "/var/lib/postgresql/wal-archive",
    ]);
    expect(byName("database").inputs.command).toContain("archive_mode=on");
    expect(byName("database-wal").inputs).toMatchObject({
      name: "fullstack_preview_database_wal",
      retain: true,
      labels: { "platform.service": "database", "platform.volume": "wal-archive" },
    });
    expect(byName("database-data").inputs).toMatchObject({
      name: "fullstack_preview_database_data",
      labels: { "platform.project": "fullstack", "platform.env": "preview", "platform.service": "database" },
    });
  });

  it("labels public containers with their host label; words avoid hosts in use but draw anew only for a new stack", () => {
    expect(byName("api").inputs.labels).toMatchObject({ "platform.public-host": "fullstack-api-brave-otter", "platform.service": "api" });
    expect((byName("database").inputs.labels as Record<string, string>)["platform.public-host"]).toBeUndefined();
    expect(byName("url-words").inputs).toEqual({ seedName: "fullstack-preview", hostPrefixes: ["fullstack-api", "fullstack-web"] });
  });

  it("hardens and limits services and their migrations alike, and publishes no port", () => {
    for (const n of ["api", "web", "database", "api-migrate"])
      expect(byName(n).inputs).toMatchObject({ cpus: 0.5, memoryBytes: 512 * 1024 ** 2, pidsLimit: 512 });
    expect(byName("api").inputs.port).toBeUndefined();
  });

  it("tags images by the hash of their inputs", () => {
    const img = byName("api-image").inputs;
    expect(img.tag).toBe(`platform/fullstack_api:${String(img.hash).slice(0, 12)}`);
    expect(img.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(byName("api").inputs.image).toBe(img.tag);
  });

  it("gives builds the service's variables as a secret input, and only a hash of them in the clear", () => {
    const api = byName("api-image").inputs;
    expect(api.buildEnv).toMatchObject({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" });
    expect(reveal(api.buildEnv)).toEqual({
      DATABASE_URL: "postgresql://app:s3cretpassw0rd@database:5432/app",
      CORS_ORIGINS: "https://fullstack-web-brave-otter.localhost",
    });
    expect(api.buildEnvHash).toMatch(/^[0-9a-f]{64}$/);
    expect(reveal(byName("web-image").inputs.buildEnv)).toEqual({ API_URL: "http://api:8080" });
    // Nothing but buildEnv carries a value: the password is in no other input of any image.
    for (const name of ["api-image", "web-image"]) {
      const { buildEnv: _secret, ...rest } = byName(name).inputs;
      expect(JSON.stringify(rest)).not.toContain("s3cretpassw0rd");
    }
  });

  it("TLS: the database gets its certificate and key (a secret) before it starts; the API and its migration the CA", () => {
    expect(byName("database-tls").inputs).toMatchObject({ hosts: ["database", "localhost", "127.0.0.1"], validityDays: 825 });
    const db = byName("database").inputs;
    expect(db.command).toEqual(expect.arrayContaining(["ssl=on", "ssl_key_file=/etc/platform/tls/server.key"]));
    expect(db.files).toMatchObject({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" });
    expect(reveal(db.files)).toEqual([
      { path: "/etc/platform/tls/server.crt", content: "CERT database-tls", mode: 0o644, owner: "postgres" },
      { path: "/etc/platform/tls/server.key", content: "KEY database-tls", mode: 0o600, owner: "postgres" },
    ]);
    const ca = [{ path: "/etc/platform/tls/ca.crt", content: "CERT database-ca", mode: 0o644 }];
    expect(reveal(byName("api").inputs.files)).toEqual(ca);
    expect(reveal(byName("api-migrate").inputs.files)).toEqual(ca);
    expect(reveal(byName("api").inputs.env)).toMatchObject({ PGSSLROOTCERT: "/etc/platform/tls/ca.crt" });
    expect(byName("web").inputs.files).toBeUndefined();
    // The key goes nowhere else: no image, no other container.
    for (const r of recorded.filter((x) => x.name !== "database" && x.name !== "database-tls"))
      expect(JSON.stringify(reveal(r.inputs))).not.toContain("KEY database-tls");
  });

  it("exports URLs, and the database URL as a secret", async () => {
    expect(await unwrap(outputs.api_external_url as pulumi.Output<string>)).toBe("https://fullstack-api-brave-otter.localhost");
    expect(await unwrap(outputs.web_url as pulumi.Output<string>)).toBe("http://web:8080");
    expect(await pulumi.isSecret(outputs.database_url as pulumi.Output<string>)).toBe(true);
  });
});
