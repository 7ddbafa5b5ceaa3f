import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../../fixtures/temp-home.js";
import { withWalArchive } from "../../../../src/plan/wal-archive.js";
import { databaseVolumes, postgresContainer, tlsInitContainer } from "../../../../src/targets/kubernetes/database.js";
import { databaseHosts } from "../../../../src/targets/kubernetes/names.js";
import { databaseCaMount, deploymentSpec, migrateJobSpec, appContainer } from "../../../../src/targets/kubernetes/specs.js";
import { reveal } from "../../../../src/provider/wire.js";
import { fullstackPlan } from "../../../fixtures/plans.js";
import { plain } from "./plain.js";

/**
 * The managed Postgres's TLS on Kubernetes, as manifests: the server's key and certificate in a
 * kubernetes.io/tls Secret, copied by an init container into a memory-backed directory owned by
 * postgres; the stack's CA in a ConfigMap mounted where PGSSLROOTCERT names it. Spec builders
 * read as plain objects, then the whole target under Pulumi mocks.
 */
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
        certPem: `-----BEGIN CERTIFICATE-----\n${args.name}\n-----END CERTIFICATE-----\n`,
        keyPem: `-----BEGIN PRIVATE KEY-----\n${args.name}\n-----END PRIVATE KEY-----\n`,
        notAfter: "2046-01-01T00:00:00.000Z",
      };
      const metadata = (args.inputs.metadata as Record<string, unknown> | undefined) ?? {};
      const named = args.type.startsWith("kubernetes:") ? { metadata: { ...metadata, name: metadata.name ?? `${args.name}-x1` } } : {};
      return { id: `${args.name}-id`, state: { ...args.inputs, ...computed, ...named } };
    },
    call: () => ({}),
  },
  "fullstack",
  "preview",
  false,
);

const plan = await fullstackPlan();
const db = plan.services.find((s) => s.name === "database")!;
const api = plan.services.find((s) => s.name === "api")!;
const never = { pullPolicy: "Never" } as const;
const args = {
  plan,
  service: db,
  namespace: "fullstack-preview",
  image: "platform-local/postgres:15",
  envSecret: "database-env-x",
  imageSource: never,
  storage: { kind: "storageClass" } as const,
  tlsSecret: "database-tls-x",
  opts: {},
};

describe("Kubernetes: the database's TLS files", () => {
  it("the certificate names every form of the Service's DNS name", () => {
    expect(databaseHosts(db, "fullstack-preview")).toEqual([
      "database.fullstack-preview.svc.cluster.local",
      "database",
      "database.fullstack-preview",
      "database.fullstack-preview.svc",
    ]);
  });

  it("an init container of the database's image copies the Secret's files, owned by postgres, the key 0600", () => {
    const init = tlsInitContainer(args);
    expect(init.image).toBe("platform-local/postgres:15");
    const script = plain(plain(init.command)[2]) as string;
    expect(script).toContain("cp /run/platform/tls-secret/tls.key /etc/platform/tls/server.key");
    expect(script).toContain('chown "$(id -u postgres):$(id -g postgres)" /etc/platform/tls/server.crt /etc/platform/tls/server.key');
    expect(script).toContain("chmod 0600 /etc/platform/tls/server.key");
    expect(init.volumeMounts).toEqual([
      { name: "tls-secret", mountPath: "/run/platform/tls-secret", readOnly: true },
      { name: "tls", mountPath: "/etc/platform/tls" },
    ]);
  });

  it("the key is in a Secret volume and a memory-backed emptyDir, never on the node's disk", () => {
    expect(databaseVolumes(args, "database-data")).toEqual([
      { name: "data", persistentVolumeClaim: { claimName: "database-data" } },
      { name: "tls-secret", secret: { secretName: "database-tls-x", defaultMode: 0o400 } },
      { name: "tls", emptyDir: { medium: "Memory", sizeLimit: "1Mi" } },
    ]);
  });

  it("the server runs with ssl=on and WAL archiving, and reads its files from the mounted directory", () => {
    const c = postgresContainer(args);
    expect(c.args).toEqual(withWalArchive(db.command as string[]));
    expect(plain(c.args)).toContain("ssl=on");
    expect(plain(c.args)).toContain("archive_mode=on");
    expect(c.volumeMounts).toEqual([
      { name: "data", mountPath: "/var/lib/postgresql/data" },
      // the WAL archive: a subdirectory of the same claim (no second claim to create on an upgrade)
      { name: "data", mountPath: "/var/lib/postgresql/wal-archive", subPath: "wal-archive" },
      { name: "tls", mountPath: "/etc/platform/tls", readOnly: true },
    ]);
    // Without a Secret, no TLS command (the server could not start without its files): the image's own, archiving.
    const { tlsSecret: _none, ...withoutTls } = args;
    expect(postgresContainer(withoutTls).args).toEqual(withWalArchive(["postgres"]));
    expect(databaseVolumes(withoutTls, "c")).toHaveLength(1);
  });
});

describe("Kubernetes: the CA in the pods of services that reference a database", () => {
  it("the API's pods and its migration mount the CA's ConfigMap where PGSSLROOTCERT points", () => {
    const mount = { name: "database-ca", mountPath: "/etc/platform/tls", readOnly: true };
    const volume = { name: "database-ca", configMap: { name: "database-ca-x", items: [{ key: "ca.crt", path: "ca.crt" }] } };
    expect(databaseCaMount(api, "database-ca-x")).toEqual({ volumes: [volume], mounts: [mount] });
    const spec = deploymentSpec(plan, api, appContainer(api, "img:1", "api-env", never), never, "database-ca-x");
    const pod = plain(plain(spec.template).spec);
    expect(pod.volumes).toEqual([volume]);
    expect(plain(pod.containers)[0]).toMatchObject({ volumeMounts: [mount] });
    const job = plain(plain(migrateJobSpec(plan, api, "img:1", "api-env", never, "database-ca-x").template).spec);
    expect(job.volumes).toEqual([volume]);
    expect(plain(job.containers)[0]).toMatchObject({ volumeMounts: [mount] });
  });

  it("a service that references no database gets nothing", () => {
    const web = plan.services.find((s) => s.name === "web")!;
    expect(databaseCaMount(web, "database-ca-x")).toEqual({ volumes: [], mounts: [] });
    const pod = plain(plain(deploymentSpec(plan, web, appContainer(web, "img:2", "web-env", never), never, "database-ca-x").template).spec);
    expect(pod.volumes).toBeUndefined();
  });
});

describe("Kubernetes target (mocked engine): the stack's TLS objects", () => {
  const byName = (name: string) => recorded.find((r) => r.name === name) as Recorded;
  beforeAll(async () => {
    const { createKubernetesTarget } = await import("../../../../src/targets/kubernetes/index.js");
    const outputs = createKubernetesTarget(plan, {
      buildEnvKey: Buffer.alloc(32, 1),
      logDir: tempDir("logs-"),
      kubeconfig: "/nonexistent/kubeconfig",
      testCluster: { volumesDir: "/tmp/volumes" },
    });
    await new Promise<void>((r) => (outputs.database_url as pulumi.Output<string>).apply(() => r()));
    await new Promise((r) => setTimeout(r, 100));
  });

  it("one CA per stack and a server certificate naming the database's Service", () => {
    expect(byName("database-ca").inputs).toMatchObject({ commonName: "platform fullstack/preview databases", validityDays: 7300 });
    expect(byName("database-tls").type).toBe("platform:tls:ServerCertificate");
    expect(byName("database-tls").inputs.hosts).toEqual([...databaseHosts(db, "fullstack-preview"), "localhost", "127.0.0.1"]);
  });

  it("a kubernetes.io/tls Secret holds the key (secret); a ConfigMap holds the CA certificate only", () => {
    const secret = recorded.find((r) => r.type === "kubernetes:core/v1:Secret" && r.name === "database-tls") as Recorded;
    expect(secret.inputs.type).toBe("kubernetes.io/tls");
    expect(reveal(secret.inputs.stringData)).toEqual({
      "tls.crt": expect.stringContaining("BEGIN CERTIFICATE"),
      "tls.key": expect.stringContaining("BEGIN PRIVATE KEY"),
    });
    expect(JSON.stringify(secret.inputs.stringData)).toContain("1b47061264138c4ac30d75fd1eb44270");
    const cm = recorded.find((r) => r.type === "kubernetes:core/v1:ConfigMap") as Recorded;
    expect(cm.name).toBe("database-ca");
    expect(Object.keys(cm.inputs.data as object)).toEqual(["ca.crt"]);
    expect(JSON.stringify(cm.inputs)).not.toContain("PRIVATE KEY");
  });

  it("the StatefulSet mounts the Secret through the init container; the API's pods mount the CA", () => {
    const sts = recorded.find((r) => r.type === "kubernetes:apps/v1:StatefulSet") as Recorded;
    const pod = (sts.inputs.spec as { template: { spec: Record<string, unknown> } }).template.spec;
    expect(pod.volumes).toContainEqual({ name: "tls-secret", secret: { secretName: "database-tls-x1", defaultMode: 0o400 } });
    expect((pod.initContainers as { name: string }[]).map((c) => c.name)).toEqual(["tls-files"]);
    const apiDeployment = recorded.find((r) => r.type === "kubernetes:apps/v1:Deployment" && r.name === "api") as Recorded;
    const apiPod = (apiDeployment.inputs.spec as { template: { spec: Record<string, unknown> } }).template.spec;
    expect(apiPod.volumes).toEqual([
      { name: "database-ca", configMap: { name: "database-ca-x1", items: [{ key: "ca.crt", path: "ca.crt" }] } },
    ]);
    const env = recorded.find((r) => r.type === "kubernetes:core/v1:Secret" && r.name === "api-env") as Recorded;
    expect(reveal(env.inputs.stringData)).toMatchObject({
      PGSSLROOTCERT: "/etc/platform/tls/ca.crt",
      NODE_EXTRA_CA_CERTS: "/etc/platform/tls/ca.crt",
      DATABASE_URL: "postgresql://app:s3cretpassw0rd@database.fullstack-preview.svc.cluster.local:5432/app",
    });
  });
});
