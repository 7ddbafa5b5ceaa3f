import { spawn } from "node:child_process";
import { kubePods } from "./kube-pods.js";
import { type KubeCluster, kubectlBinary } from "./kubernetes.js";
import { type LogLine, type LogRequest, splitTimestamp } from "./log-stream.js";

/**
 * Studio's logs on Kubernetes: every pod of each asked service (each replica), one `kubectl logs`
 * each, with kubectl's timestamps (RFC 3339, as Docker's). kubectl gives the container's stdout
 * and stderr as one stream: lines come as stdout. Returns a function that stops every stream.
 */
export async function streamKubeLogs(
  t: KubeCluster,
  q: Omit<LogRequest, "project" | "env">,
  onLine: (l: LogLine) => void,
  onEnd: () => void,
): Promise<() => void> {
  const pods = (await kubePods(t)).filter((p) => q.services.includes(p.service) && p.state !== "pending");
  const children = pods.map((p) => {
    const args = [
      "--kubeconfig",
      t.kubeconfig,
      "logs",
      "-n",
      p.namespace,
      p.name,
      "--timestamps",
      `--tail=${q.tail}`,
      // Like Docker's `since`: a time, in seconds since the epoch.
      ...(q.sinceSeconds > 0 ? [`--since-time=${new Date(q.sinceSeconds * 1000).toISOString()}`] : []),
      ...(q.follow ? ["--follow"] : []),
    ];
    return { pod: p, child: spawn(kubectlBinary(), args, { stdio: ["ignore", "pipe", "ignore"] }) };
  });
  let open = children.length;
  const ended = () => {
    if (--open === 0) onEnd();
  };
  if (open === 0) onEnd();
  for (const { pod, child } of children) {
    let partial = "";
    child.stdout.on("data", (d: Buffer) => {
      const lines = (partial + d.toString("utf8")).split("\n");
      partial = lines.pop() ?? "";
      for (const l of lines) onLine({ service: pod.service, stream: "stdout", ...splitTimestamp(l) });
    });
    child.on("close", () => {
      if (partial) onLine({ service: pod.service, stream: "stdout", ...splitTimestamp(partial) });
      ended();
    });
    child.on("error", () => undefined);
  }
  return () => {
    for (const { child } of children) if (child.exitCode === null) child.kill("SIGTERM");
  };
}
