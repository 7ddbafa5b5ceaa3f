import { describe, expect, it } from "vitest";
import { buildRecoveryPod, type KubeDatabase } from "../../../src/runtime/kube-recover.js";

const db: KubeDatabase = {
  cluster: { project: "p", env: "preview", kubeconfig: "/k" },
  namespace: "p-preview",
  name: "database",
  uid: 100,
  gid: 102,
  template: {
    containers: [
      {
        name: "database",
        image: "platform/postgres:15",
        imagePullPolicy: "Never",
        env: [{ name: "PGDATA", value: "/var/lib/postgresql/data/pgdata" }],
        volumeMounts: [
          { name: "data", mountPath: "/var/lib/postgresql/data" },
          { name: "data", mountPath: "/var/lib/postgresql/wal-archive", subPath: "wal-archive" },
          { name: "tls", mountPath: "/etc/platform/tls", readOnly: true },
        ],
      },
    ],
    volumes: [
      { name: "data", persistentVolumeClaim: { claimName: "data-database" } } as { name: string },
      { name: "tls", emptyDir: {} } as { name: string },
    ],
  },
};

describe("the helper pod of a point-in-time recovery on Kubernetes", () => {
  it("mounts the data claim (the archive read-only), as the postgres user, with PGDATA, and nothing else", () => {
    const pod = buildRecoveryPod(db, "database-recover", "/var/lib/postgresql/wal-archive");
    expect(pod.metadata).toEqual({ name: "database-recover", namespace: "p-preview", labels: { "platform.recovery": "database" } });
    expect(pod.spec.volumes).toEqual([{ name: "data", persistentVolumeClaim: { claimName: "data-database" } }]);
    expect(pod.spec.securityContext).toEqual({ runAsUser: 100, runAsGroup: 102 });
    const [c] = pod.spec.containers;
    expect(c).toMatchObject({ image: "platform/postgres:15", imagePullPolicy: "Never", command: ["sleep", "infinity"] });
    expect(c?.env).toEqual([{ name: "PGDATA", value: "/var/lib/postgresql/data/pgdata" }]);
    expect(c?.volumeMounts).toEqual([
      { name: "data", mountPath: "/var/lib/postgresql/data" },
      { name: "data", mountPath: "/var/lib/postgresql/wal-archive", subPath: "wal-archive", readOnly: true },
    ]);
    // no labels a Service selects: it never gets requests
    expect(Object.keys(pod.metadata.labels)).not.toContain("app.kubernetes.io/name");
  });
});
