import { randomBytes } from "node:crypto";
import { ExitCode, VisibleError } from "../errors.js";
import { diagnosisLine } from "../provider/contract/diagnose-start.js";
import { type KubeCluster, kubectl, kubectlAttached, kubectlBinary, type Workload, workloads } from "./kubernetes.js";
import type { PodHost } from "./pg-exec.js";

/**
 * `platform run` and `platform exec` on the Kubernetes target, through kubectl as `platform logs`:
 * run is a bare pod of the service's current image and env Secret, removed when the command ends,
 * with the command's exit code; exec runs in a ready pod of the service (`kubectl exec`).
 */

async function workloadOf(t: KubeCluster, service: string): Promise<Workload & { metadata: { namespace: string } }> {
  const w = (await workloads(t)).find((x) => (x.metadata.labels?.["platform.service"] ?? x.metadata.name) === service);
  if (!w?.metadata.namespace)
    throw new VisibleError(`${service} is not deployed in ${t.project} (${t.env}): run platform deploy`, { exitCode: ExitCode.failed });
  return w as Workload & { metadata: { namespace: string } };
}

interface PodJson {
  metadata: { name: string; creationTimestamp: string; deletionTimestamp?: string; labels?: Record<string, string> };
  status: {
    phase: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: {
      restartCount: number;
      state?: { waiting?: { reason?: string }; terminated?: { exitCode: number } };
      lastState?: { terminated?: { exitCode: number } };
    }[];
  };
}

/** A service's pods, newest first. */
async function podsOf(t: KubeCluster, namespace: string, service: string): Promise<PodJson[]> {
  const out = await kubectl(t, [
    "get",
    "pods",
    "-n",
    namespace,
    "-l",
    `app.kubernetes.io/name=${service},platform.project=${t.project},platform.env=${t.env}`,
    "-o",
    "json",
  ]);
  return (JSON.parse(out) as { items: PodJson[] }).items.sort((a, b) =>
    b.metadata.creationTimestamp.localeCompare(a.metadata.creationTimestamp),
  );
}

const isReady = (p: PodJson) =>
  !p.metadata.deletionTimestamp &&
  p.status.phase === "Running" &&
  p.status.conditions?.some((c) => c.type === "Ready" && c.status === "True");

/**
 * The pod `platform run` starts: the service's container as its workload declares it (image,
 * env Secret by name, limits, mounts), with the command as its args (Docker's CMD: the image's
 * entrypoint still runs). Labelled platform.run, not with the selector labels: no Service sends
 * it requests, and status and logs never count it. Values stay in the Secret: only its name is
 * on kubectl's command line.
 */
export function buildRunPod(w: Workload, o: { service: string; project: string; env: string; command: readonly string[]; tty: boolean }) {
  const spec = w.spec.template.spec;
  const {
    name: _name,
    ports: _ports,
    readinessProbe: _r,
    livenessProbe: _l,
    lifecycle: _lc,
    command: _c,
    ...container
  } = spec.containers[0]!;
  // Never a data claim (a database's, a redis's): a one-off command is no second server on its data.
  const volumes = (spec.volumes ?? []).filter((v) => !("persistentVolumeClaim" in v));
  const mounts = ((container.volumeMounts as { name: string }[] | undefined) ?? []).filter((m) => volumes.some((v) => v.name === m.name));
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { labels: { "platform.project": o.project, "platform.env": o.env, "platform.run": o.service } },
    spec: {
      restartPolicy: "Never",
      enableServiceLinks: false,
      ...(spec.imagePullSecrets ? { imagePullSecrets: spec.imagePullSecrets } : {}),
      ...(volumes.length ? { volumes } : {}),
      containers: [
        {
          ...container,
          name: "run",
          args: [...o.command],
          ...(mounts.length ? { volumeMounts: mounts } : { volumeMounts: undefined }),
          // Input only when attached to a terminal: a detached pod's open stdin would block a read forever.
          ...(o.tty ? { stdin: true, stdinOnce: true, tty: true } : {}),
        },
      ],
    },
  };
}

/** A ready pod of the service and its container, for `kubectl exec`; throws when the service has none. */
export async function kubeReadyPod(t: KubeCluster, service: string): Promise<PodHost> {
  const w = await workloadOf(t, service);
  const namespace = w.metadata.namespace;
  const pod = (await podsOf(t, namespace, service)).find(isReady);
  if (!pod)
    throw new VisibleError(`${service} has no ready pod in ${t.project} (${t.env}): see platform status`, { exitCode: ExitCode.failed });
  const container = w.spec.template.spec.containers[0]?.name ?? service;
  return { kubectl: kubectlBinary(), kubeconfig: t.kubeconfig, namespace, pod: pod.metadata.name, container };
}

/** Runs the command; resolves with its exit code and the image it ran. */
export async function kubeOneOff(
  t: KubeCluster,
  kind: "run" | "exec",
  service: string,
  command: string[],
  tty: boolean,
): Promise<{ code: number; image: string }> {
  const w = await workloadOf(t, service);
  const namespace = w.metadata.namespace;
  const image = w.spec.template.spec.containers[0]?.image ?? "";
  if (kind === "exec") {
    const { pod, container } = await kubeReadyPod(t, service);
    const code = await kubectlAttached(t, ["exec", "-n", namespace, "-i", ...(tty ? ["-t"] : []), pod, "-c", container, "--", ...command]);
    return { code, image };
  }
  const name = `${service}-run-${randomBytes(3).toString("hex")}`;
  const overrides = JSON.stringify(buildRunPod(w, { service, project: t.project, env: t.env, command, tty }));
  const run = ["run", name, "-n", namespace, `--image=${image}`, "--restart=Never", `--overrides=${overrides}`];
  // A terminal: attached (kubectl run -it --rm), as interactive as docker run -it.
  if (tty) return { code: await kubectlAttached(t, [...run, "--rm", "-i", "-t", "--quiet"]), image };
  // Otherwise kubectl run -i attaches once the container runs, and output printed before that
  // is lost: started detached, its log followed from the start, its exit code read, then deleted.
  try {
    await kubectl(t, run);
    await untilPod(t, namespace, name, (p) => p.status.phase !== "Pending" || !!p.status.containerStatuses?.[0]?.state?.terminated);
    await kubectlAttached(t, ["logs", "-n", namespace, name, "--follow"]);
    const done = await untilPod(t, namespace, name, (p) => !!p.status.containerStatuses?.[0]?.state?.terminated);
    return { code: done.status.containerStatuses?.[0]?.state?.terminated?.exitCode ?? 1, image };
  } finally {
    // Its container has exited: the delete is quick, and nothing is left once the CLI returns.
    await kubectl(t, ["delete", "pod", "-n", namespace, name, "--ignore-not-found", "--wait=true", "--timeout=60s"]).catch(() => undefined);
  }
}

const START_SECONDS = 120;

/** Polls a one-off pod until `done`; a pod that cannot start (an image that cannot be pulled) fails it, bounded. */
async function untilPod(t: KubeCluster, namespace: string, name: string, done: (p: PodJson) => boolean): Promise<PodJson> {
  const until = Date.now() + START_SECONDS * 1000;
  for (;;) {
    const p = JSON.parse(await kubectl(t, ["get", "pod", "-n", namespace, name, "-o", "json"])) as PodJson;
    if (done(p)) return p;
    const waiting = p.status.containerStatuses?.[0]?.state?.waiting?.reason;
    if (waiting && /ErrImage|ImagePullBackOff|CreateContainer|InvalidImageName/.test(waiting))
      throw new VisibleError(`the pod of platform run cannot start: ${waiting}`, { exitCode: ExitCode.failed });
    if (Date.now() > until)
      throw new VisibleError(`the pod of platform run did not start within ${START_SECONDS}s (${p.status.phase})`, {
        exitCode: ExitCode.failed,
      });
    await new Promise((r) => setTimeout(r, 300));
  }
}

const UNREADABLE = /^unable to retrieve container logs/m;

/**
 * The last lines of a service's pod that crashed (a worker that exits at start): its newest pod
 * that restarted or waits to. A crash-looping container's previous run is the one that crashed;
 * the kubelet may be swapping containers at that moment ("unable to retrieve container logs"),
 * so both the previous and the current container are tried, a few times. What a failed deploy shows.
 */
export async function kubeCrashLog(t: KubeCluster, service: string, lines = 20): Promise<string> {
  const w = await workloadOf(t, service).catch(() => undefined);
  if (!w) return "";
  for (let attempt = 0; attempt < 4; attempt++) {
    if (attempt) await new Promise((r) => setTimeout(r, 1500));
    const pod = (await podsOf(t, w.metadata.namespace, service)).find((p) =>
      p.status.containerStatuses?.some((c) => c.restartCount > 0 || c.state?.terminated),
    );
    if (!pod) return "";
    const status = pod.status.containerStatuses?.[0];
    const exit = status?.state?.terminated?.exitCode ?? status?.lastState?.terminated?.exitCode;
    for (const previous of status?.state?.terminated ? [false, true] : [true, false]) {
      const args = ["logs", "-n", w.metadata.namespace, pod.metadata.name, ...(previous ? ["--previous"] : []), `--tail=${lines}`];
      const out = (await kubectl(t, args).catch(() => "")).trimEnd();
      if (out && !UNREADABLE.test(out))
        return `${diagnosisLine(out, { service })}${out}${exit !== undefined ? `\n(pod ${pod.metadata.name} exited with code ${exit} before it was healthy)` : ""}`;
    }
  }
  return "";
}
