import { dirname } from "node:path";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { DEFAULT_POSTGRES_VERSION } from "../../config/index.js";
import { VisibleError } from "../../errors.js";
import type { Plan } from "../../plan/types.js";
import { withWalArchive } from "../../plan/wal-archive.js";
import { appContainer, podLabels } from "./specs.js";
import { createStatefulService, type StatefulArgs } from "./stateful.js";

export type { DataStorage } from "./stateful.js";

export interface DatabaseArgs extends StatefulArgs {
  /** The Secret (type kubernetes.io/tls) with the server's tls.crt and tls.key; without it the server serves no TLS. */
  readonly tlsSecret?: pulumi.Input<string>;
  readonly opts: pulumi.CustomResourceOptions;
}

const TLS_FILES_VOLUME = "tls";
const TLS_SECRET_VOLUME = "tls-secret";
const TLS_SECRET_DIR = "/run/platform/tls-secret";

/**
 * The server's TLS files where its command expects them, owned by the image's postgres user
 * (the server refuses a key that others can read, and a Secret volume's files belong to root):
 * an init container of the same image copies them from the Secret into a memory-backed
 * emptyDir, so the key is never on the node's disk.
 */
export function tlsInitContainer(a: DatabaseArgs): k8s.types.input.core.v1.Container {
  const { certFile, keyFile, owner } = a.service.database!.tls;
  const script = [
    "set -e",
    `cp ${TLS_SECRET_DIR}/tls.crt ${certFile}`,
    `cp ${TLS_SECRET_DIR}/tls.key ${keyFile}`,
    `chown "$(id -u ${owner}):$(id -g ${owner})" ${certFile} ${keyFile}`,
    `chmod 0644 ${certFile}`,
    `chmod 0600 ${keyFile}`,
  ].join("\n");
  return {
    name: "tls-files",
    image: a.image,
    imagePullPolicy: a.imageSource.pullPolicy,
    command: ["sh", "-c", script],
    volumeMounts: [
      { name: TLS_SECRET_VOLUME, mountPath: TLS_SECRET_DIR, readOnly: true },
      { name: TLS_FILES_VOLUME, mountPath: dirname(certFile) },
    ],
    resources: { limits: { cpu: "100m", memory: "32Mi" }, requests: { cpu: "10m", memory: "16Mi" } },
    securityContext: { allowPrivilegeEscalation: false },
  };
}

/** The pod's volumes: its data claim, and with TLS the Secret and the memory-backed directory the server reads. */
export function databaseVolumes(a: DatabaseArgs, claimName: pulumi.Input<string>): k8s.types.input.core.v1.Volume[] {
  return [
    { name: "data", persistentVolumeClaim: { claimName } },
    ...(a.tlsSecret
      ? [
          { name: TLS_SECRET_VOLUME, secret: { secretName: a.tlsSecret, defaultMode: 0o400 } },
          { name: TLS_FILES_VOLUME, emptyDir: { medium: "Memory", sizeLimit: "1Mi" } },
        ]
      : []),
  ];
}

/** `version:` other than the default is built on the Docker target only (docs/guide/backups.md, "PostgreSQL versions"). */
export function checkDatabaseVersions(plan: Plan): void {
  const other = plan.services.filter((s) => s.database?.version && s.database.version !== DEFAULT_POSTGRES_VERSION);
  if (other.length)
    throw new VisibleError(
      `${other.map((s) => `services.${s.name}.version ${s.database?.version}`).join(", ")}: PostgreSQL ${DEFAULT_POSTGRES_VERSION} only on the Kubernetes target for now (the other majors and their upgrades are built on Docker); remove version: or deploy to Docker`,
    );
}

/** The WAL archive's directory in the data claim (beside pgdata/), mounted at WAL_ARCHIVE_PATH. */
export const WAL_ARCHIVE_SUBDIR = "wal-archive";

/**
 * The official image's entrypoint initialises a fresh directory and runs as root until it drops
 * to postgres: it chowns PGDATA, which fsGroup would not do for a hostPath volume. PGDATA is a
 * subdirectory, because a volume's root may hold lost+found.
 */
export function postgresContainer(a: DatabaseArgs): k8s.types.input.core.v1.Container {
  const s = a.service;
  const base = appContainer(s, a.image, a.envSecret, a.imageSource);
  const dataPath = s.database!.dataPath;
  // The stack's password becomes the server's, also on data that outlived an earlier stack
  // (retention: permanent). A postStart hook runs beside the entrypoint: it waits for the real
  // server (the initdb one listens on no TCP address), then syncs.
  const waitThenSync = ["sh", "-c", `until pg_isready -q -h 127.0.0.1; do sleep 1; done; ${shellArgs(s.postStart ?? [])}`];
  // Without its certificate the server cannot start with ssl=on: the plan's command is for a TLS server.
  const { args: _tlsCommand, ...rest } = base;
  const command = a.tlsSecret ? (base.args as string[]) : ["postgres"];
  const archive = s.database!.walArchive;
  return {
    ...(a.tlsSecret ? base : rest),
    // WAL archiving as on Docker: the same archive_command, through the image's entrypoint.
    args: withWalArchive(command),
    env: [{ name: "PGDATA", value: `${dataPath}/pgdata` }],
    volumeMounts: [
      { name: "data", mountPath: dataPath },
      // The archive is a subdirectory of the data claim, not a claim of its own: a deployment
      // made before archiving keeps its one claim (nothing to create, move or bind; only the pod
      // template changes, which rolls the pod once), the archive lives and goes with the data
      // (retention, destroy), and it is beside PGDATA (pgdata/), never in it.
      { name: "data", mountPath: archive.path, subPath: WAL_ARCHIVE_SUBDIR },
      ...(a.tlsSecret ? [{ name: TLS_FILES_VOLUME, mountPath: dirname(s.database!.tls.certFile), readOnly: true }] : []),
    ],
    // The database stops first anyway (a StatefulSet replaces its one pod), and gets its grace.
    lifecycle: s.postStart?.length ? { postStart: { exec: { command: waitThenSync } } } : undefined,
    securityContext: undefined,
  };
}

function shellArgs(argv: readonly string[]): string {
  return argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
}

/** A postgres service: a StatefulSet of one pod on its claim; awaited until pg_isready answers. */
export function createDatabase(a: DatabaseArgs): k8s.apps.v1.StatefulSet {
  return createStatefulService(a, {
    container: postgresContainer(a),
    initContainers: a.tlsSecret ? [tlsInitContainer(a)] : [],
    volumes: (claim) => databaseVolumes(a, claim),
  });
}

/**
 * A postgres service with what it needs besides its StatefulSet: the Secret `<name>-credentials`
 * (for people and tools in the cluster), and with TLS its server certificate as a Secret named by
 * Pulumi (a renewed certificate makes a new Secret, whose new name rolls the pod).
 */
export function createDatabaseService(
  a: StatefulArgs,
  values: Readonly<Record<string, pulumi.Input<string>>>,
  server: { certPem: pulumi.Input<string>; keyPem: pulumi.Input<string> } | undefined,
  inNs: pulumi.CustomResourceOptions,
): k8s.apps.v1.StatefulSet {
  const s = a.service;
  const labels = podLabels(a.plan, s);
  new k8s.core.v1.Secret(
    `${s.name}-credentials`,
    {
      metadata: { name: `${s.name}-credentials`, namespace: a.namespace, labels },
      stringData: pulumi.secret({
        username: s.database!.user,
        password: values.password as pulumi.Output<string>,
        database: s.database!.database,
        url: values.url as pulumi.Output<string>,
      }),
    },
    inNs,
  );
  const tlsSecret = server
    ? new k8s.core.v1.Secret(
        `${s.name}-tls`,
        {
          metadata: { namespace: a.namespace, labels },
          type: "kubernetes.io/tls",
          stringData: pulumi.secret({ "tls.crt": server.certPem, "tls.key": server.keyPem }),
        },
        inNs,
      ).metadata.name
    : undefined;
  return createDatabase({ ...a, ...(tlsSecret ? { tlsSecret } : {}) });
}
