import { randomBytes } from "node:crypto";
import { ExitCode, VisibleError } from "../errors.js";
import { type KubeCluster, kubectl, kubectlAttached, type Workload, workloads } from "./kubernetes.js";

/**
 * `platform run` and `platform exec` on the Kubernetes target, through kubectl as `platform logs`:
 * run is a bare pod of the service's current image and env Secret, attached and removed when
 * the command ends (`kubectl run --rm`, which exits with the command's code); exec runs in a
 * ready pod of the service (`kubectl exec`).
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

/** The image the service runs now (its workload's pod template): what a run starts and the runs log records. */
export async function kubeServiceImage(t: KubeCluster, service: string): Promise<string> {
  return (await workloadOf(t, service)).spec.template.spec.containers[0]?.image ?? "";
}

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
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { labels: { "platform.project": o.project, "platform.env": o.env, "platform.run": o.service } },
    spec: {
      restartPolicy: "Never",
      enableServiceLinks: false,
      ...(spec.imagePullSecrets ? { imagePullSecrets: spec.imagePullSecrets } : {}),
      ...(spec.volumes ? { volumes: spec.volumes } : {}),
      containers: [{ ...container, name: "run", args: [...o.command], stdin: true, stdinOnce: true, tty: o.tty }],
    },
  };
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
    const pod = (await podsOf(t, namespace, service)).find(isReady);
    if (!pod)
      throw new VisibleError(`${service} has no ready pod in ${t.project} (${t.env}): see platform status`, { exitCode: ExitCode.failed });
    const container = w.spec.template.spec.containers[0]?.name ?? service;
    const code = await kubectlAttached(t, [
      "exec",
      "-n",
      namespace,
      "-i",
      ...(tty ? ["-t"] : []),
      pod.metadata.name,
      "-c",
      container,
      "--",
      ...command,
    ]);
    return { code, image };
  }
  const name = `${service}-run-${randomBytes(3).toString("hex")}`;
  const overrides = JSON.stringify(buildRunPod(w, { service, project: t.project, env: t.env, command, tty }));
  const code = await kubectlAttached(t, [
    "run",
    name,
    "-n",
    namespace,
    `--image=${image}`,
    "--restart=Never",
    "--rm",
    "-i",
    ...(tty ? ["-t"] : []),
    "--quiet",
    `--overrides=${overrides}`,
  ]);
  return { code, image };
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
        return `${out}${exit !== undefined ? `\n(pod ${pod.metadata.name} exited with code ${exit} before it was healthy)` : ""}`;
    }
  }
  return "";
}
