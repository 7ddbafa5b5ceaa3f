import { TELEMETRY_ROLE } from "../plan/constants.js";
import { READ_TIMEOUT } from "./kube-pods.js";
import { type KubeCluster, kubectl } from "./kubernetes.js";
import { saveSnapshot, SNAPSHOT_COMMAND } from "./telemetry-snapshot.js";

/**
 * The telemetry store of a Kubernetes stack lives on its receiver's claim in the cluster
 * (targets/kubernetes/telemetry.ts). Studio reads a copy, made inside the receiver's pod through
 * the exec API as for an engine on a server (telemetry-snapshot.ts).
 */

/** The receiver's running pod, as namespace and name; undefined when the stack runs none. */
async function receiverPod(t: KubeCluster): Promise<{ namespace: string; name: string } | undefined> {
  const out = await kubectl(t, [
    "get",
    "pods",
    "--all-namespaces",
    "-l",
    `platform.project=${t.project},platform.env=${t.env},platform.role=${TELEMETRY_ROLE}`,
    "--field-selector",
    "status.phase=Running",
    "-o",
    'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}{"\\n"}{end}',
    READ_TIMEOUT,
  ]);
  const first = out.split("\n").find(Boolean);
  if (!first) return undefined;
  const [namespace, name] = first.split("/") as [string, string];
  return { namespace, name };
}

/** Copies the stack's store into `dir`; false when it runs no receiver or the receiver has no store yet. */
export async function copyKubeTelemetry(t: KubeCluster, dir: string): Promise<boolean> {
  const pod = await receiverPod(t).catch(() => undefined);
  if (!pod) return false;
  const out = await kubectl(t, ["exec", "-n", pod.namespace, pod.name, "-c", "receiver", "--", ...SNAPSHOT_COMMAND]).catch(() => undefined);
  return saveSnapshot(dir, out);
}
