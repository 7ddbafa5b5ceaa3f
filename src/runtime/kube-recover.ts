import { kubectl, type KubeCluster, kubectlBinary, type Workload } from "./kubernetes.js";
import { execText, execWithInput, type ExecResult, type PodHost } from "./pg-exec.js";
import { setTimeout as sleep } from "node:timers/promises";
import { WAL_ARCHIVE_PATH } from "../plan/wal-archive.js";
import { OLD_DIR, ROLLBACK, SWAP } from "./pg-recover.js";
import type { DatabaseRecovery } from "./target-runtime.js";

/**
 * What a point-in-time recovery does to a database on the Kubernetes target, the peer of
 * pg-recover.ts on Docker: the StatefulSet is scaled to 0 (its one pod stops cleanly: SIGTERM is
 * PostgreSQL's fast shutdown), a helper pod of the same image, as the postgres user, with no
 * Service, mounts the same data claim (and the WAL archive in it, read-only) and runs the same
 * SWAP or ROLLBACK scripts through `kubectl exec` (the base backup arrives on its standard
 * input, decrypted by the CLI), is removed, and the StatefulSet is scaled back to 1. A
 * StatefulSet's replicas stay 1 in its spec once it is back: the next deploy sees no change.
 */

export interface KubeDatabase {
  readonly cluster: KubeCluster;
  readonly namespace: string;
  /** The StatefulSet (the service's name); its one pod is `<name>-0`. */
  readonly name: string;
  /** Its pod template as deployed (image, volumes, mounts, PGDATA). */
  readonly template: Workload["spec"]["template"]["spec"];
  /** The postgres user's uid and gid in the image (the helper runs as them). */
  readonly uid: number;
  readonly gid: number;
}

interface Mount {
  name: string;
  mountPath: string;
  subPath?: string;
  readOnly?: boolean;
}

/** The StatefulSet of the database whose ready pod is `host`, and who postgres is in its image. */
export async function kubeDatabase(cluster: KubeCluster, host: PodHost, name: string): Promise<KubeDatabase> {
  const w = JSON.parse(await kubectl(cluster, ["get", "statefulset", "-n", host.namespace, name, "-o", "json"])) as Workload;
  const ids = await execText(host, ["sh", "-c", "id -u postgres; id -g postgres"]);
  const [uid, gid] = ids.stdout.trim().split("\n").map(Number);
  if (ids.code !== 0 || uid === undefined || gid === undefined) throw new Error(`cannot tell the postgres user of ${name}: ${ids.stderr}`);
  return { cluster, namespace: host.namespace, name, template: w.spec.template.spec, uid, gid };
}

/** The helper pod: the database container's image, PGDATA and data mounts (the archive read-only), sleeping. */
export function buildRecoveryPod(db: KubeDatabase, podName: string, archivePath: string) {
  const c = db.template.containers[0]!;
  const claims = (db.template.volumes ?? []).filter((v) => "persistentVolumeClaim" in v);
  const mounts = ((c.volumeMounts as Mount[] | undefined) ?? [])
    .filter((m) => claims.some((v) => v.name === m.name))
    .map((m) => ({ ...m, ...(m.mountPath === archivePath ? { readOnly: true } : {}) }));
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: podName, namespace: db.namespace, labels: { "platform.recovery": db.name } },
    spec: {
      restartPolicy: "Never",
      enableServiceLinks: false,
      terminationGracePeriodSeconds: 1,
      volumes: claims,
      securityContext: { runAsUser: db.uid, runAsGroup: db.gid },
      containers: [
        {
          name: "recover",
          image: c.image,
          imagePullPolicy: c.imagePullPolicy,
          command: ["sleep", "infinity"],
          env: c.env,
          volumeMounts: mounts,
          securityContext: { allowPrivilegeEscalation: false },
        },
      ],
    },
  };
}

/** Scales the StatefulSet; at 0, waits until its pod is gone (the server stopped). */
export async function scaleDatabase(db: KubeDatabase, replicas: 0 | 1, seconds = 120): Promise<void> {
  const ns = ["-n", db.namespace];
  await kubectl(db.cluster, ["scale", "statefulset", ...ns, db.name, `--replicas=${replicas}`]);
  if (replicas === 0)
    await kubectl(db.cluster, ["wait", ...ns, "--for=delete", `pod/${db.name}-0`, `--timeout=${seconds}s`]).catch((e: Error) => {
      // Already gone: kubectl wait says "not found".
      if (!/not ?found/i.test(`${e.message} ${(e as { details?: string[] }).details?.join(" ")}`)) throw e;
    });
}

/** Runs `script` (with `args`, and `input` on its standard input) in a helper pod on the data claim; the pod is removed after. */
export async function inRecoveryPod(
  db: KubeDatabase,
  archivePath: string,
  script: string,
  args: string[],
  input?: AsyncIterable<Buffer>,
): Promise<ExecResult> {
  const pod = `${db.name}-recover`;
  const ns = ["-n", db.namespace];
  await kubectl(db.cluster, ["delete", "pod", ...ns, pod, "--ignore-not-found", "--wait=true"]);
  const manifest = JSON.stringify(buildRecoveryPod(db, pod, archivePath));
  await kubectl(db.cluster, [
    "run",
    pod,
    ...ns,
    `--image=${db.template.containers[0]!.image}`,
    "--restart=Never",
    `--overrides=${manifest}`,
  ]);
  try {
    await kubectl(db.cluster, ["wait", ...ns, "--for=condition=Ready", `pod/${pod}`, "--timeout=120s"]);
    const host: PodHost = {
      kubectl: kubectlBinary(),
      kubeconfig: db.cluster.kubeconfig,
      namespace: db.namespace,
      pod,
      container: "recover",
    };
    const cmd = ["sh", "-c", script, "sh", ...args];
    return input ? await execWithInput(host, cmd, input) : await execText(host, cmd);
  } finally {
    await kubectl(db.cluster, ["delete", "pod", ...ns, pod, "--ignore-not-found", "--wait=true", "--timeout=60s"]).catch(() => undefined);
  }
}

/** Moves the data aside and unpacks the base backup (`tar` on `input`) to recover up to `targetTime`. */
export function kubeSwapInBaseBackup(db: KubeDatabase, archivePath: string, targetTime: string, input: AsyncIterable<Buffer>) {
  return inRecoveryPod(db, archivePath, SWAP, [targetTime, archivePath], input);
}

/** Puts the moved-aside data back (nothing to do when nothing was moved). */
export function kubePutBackOldData(db: KubeDatabase, archivePath: string) {
  return inRecoveryPod(db, archivePath, ROLLBACK, []);
}

/** The database pod's restart count and whether it is ready (undefined: no pod yet). */
export async function databasePodState(db: KubeDatabase): Promise<{ restarts: number; ready: boolean } | undefined> {
  const out = await kubectl(db.cluster, ["get", "pod", "-n", db.namespace, `${db.name}-0`, "-o", "json"]).catch(() => undefined);
  if (!out) return undefined;
  const p = JSON.parse(out) as {
    metadata: { deletionTimestamp?: string };
    status: { containerStatuses?: { restartCount: number; ready: boolean }[] };
  };
  if (p.metadata.deletionTimestamp) return undefined;
  const c = p.status.containerStatuses?.[0];
  return { restarts: c?.restartCount ?? 0, ready: c?.ready ?? false };
}

/** The last lines of the database pod's server (its previous run when it restarted: why a recovery stopped). */
export async function databasePodLog(db: KubeDatabase, lines = 6): Promise<string> {
  const args = ["logs", "-n", db.namespace, `${db.name}-0`, `--tail=${lines}`];
  const previous = await kubectl(db.cluster, [...args, "--previous"]).catch(() => "");
  return (previous || (await kubectl(db.cluster, args).catch(() => ""))).trimEnd();
}

/** A database StatefulSet's recovery: scaled to 0 and back to 1, its claim swapped by a helper pod. */
export async function kubeRecovery(cluster: KubeCluster, host: PodHost, service: string): Promise<DatabaseRecovery | string> {
  const db = await kubeDatabase(cluster, host, service);
  const c = db.template.containers[0];
  const pgdata = (c?.env as { name: string; value?: string }[] | undefined)?.find((e) => e.name === "PGDATA")?.value;
  const mounted = ((c?.volumeMounts as Mount[] | undefined) ?? []).some((m) => m.mountPath === WAL_ARCHIVE_PATH);
  if (!pgdata || !mounted) return `${service} has no WAL archive mount: deploy again to turn WAL archiving on`;
  return {
    stopping: "its StatefulSet scaled to 0, then back to 1",
    oldDataPlace: `${pgdata}/${OLD_DIR} of the claim of ${service}`,
    clusterDir: pgdata,
    stop: () => scaleDatabase(db, 0),
    start: () => scaleDatabase(db, 1),
    swapIn: (targetTime, input) => kubeSwapInBaseBackup(db, WAL_ARCHIVE_PATH, targetTime, input),
    putBack: () => kubePutBackOldData(db, WAL_ARCHIVE_PATH),
    // A server that gives up exits and the kubelet starts it again: a restart counts as stopped.
    async untilPromoted(promoted, timeoutMs) {
      for (const end = Date.now() + timeoutMs; Date.now() < end; await sleep(500)) {
        const state = await databasePodState(db);
        if (state && state.restarts > 0) return false;
        if (state && (await promoted())) return true;
      }
      return false;
    },
    logTail: () => databasePodLog(db),
  };
}
