import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type Docker from "dockerode";

/** What `platform run` copies from a service's running container into a fresh one. */
export interface OneOffSource {
  readonly image: string;
  readonly env: readonly string[];
  readonly networks: readonly string[];
  readonly memoryBytes: number;
  readonly nanoCpus: number;
  readonly pidsLimit: number;
  readonly labels: Readonly<Record<string, string>>;
  readonly user: string;
}

export function toOneOffSource(info: Docker.ContainerInspectInfo): OneOffSource {
  const host = info.HostConfig as Docker.HostConfig & { PidsLimit?: number | null };
  return {
    image: info.Config.Image,
    env: info.Config.Env ?? [],
    networks: Object.keys(info.NetworkSettings.Networks ?? {}),
    memoryBytes: host.Memory ?? 0,
    nanoCpus: host.NanoCpus ?? 0,
    pidsLimit: host.PidsLimit ?? 0,
    labels: info.Config.Labels ?? {},
    user: info.Config.User ?? "",
  };
}

/**
 * `docker run` arguments for a one-off command: the service's image (the exact one running, by
 * its tag), its variables, its first network, its limits. Values travel in the child's
 * environment (`-e NAME` reads them there), never on the command line (ps shows argv). Labelled
 * platform.run, not platform.service: it is no instance of the service (status, logs, rollouts
 * never count it), and --rm removes it whatever the exit.
 */
export function buildRunArgs(
  src: OneOffSource,
  o: { readonly name: string; readonly service: string; readonly command: readonly string[]; readonly tty: boolean },
): { args: string[]; env: Record<string, string> } {
  const env: Record<string, string> = {};
  const envArgs: string[] = [];
  for (const kv of src.env) {
    const at = kv.indexOf("=");
    if (at <= 0) continue;
    env[kv.slice(0, at)] = kv.slice(at + 1);
    envArgs.push("-e", kv.slice(0, at));
  }
  const keep = ["platform.project", "platform.env"].filter((k) => src.labels[k] !== undefined);
  const args = [
    "run",
    "--rm",
    "-i",
    ...(o.tty ? ["-t"] : []),
    "--name",
    o.name,
    ...keep.flatMap((k) => ["--label", `${k}=${src.labels[k]}`]),
    "--label",
    `platform.run=${o.service}`,
    ...(src.networks[0] ? ["--network", src.networks[0]] : []),
    ...(src.memoryBytes ? ["--memory", String(src.memoryBytes)] : []),
    ...(src.nanoCpus ? ["--cpus", String(src.nanoCpus / 1e9)] : []),
    ...(src.pidsLimit > 0 ? ["--pids-limit", String(src.pidsLimit)] : []),
    ...envArgs,
    src.image,
    ...o.command,
  ];
  return { args, env };
}

/** One line of the stack's runs log: who ran what, where, and how it ended. */
export interface RunRecord {
  readonly at: string;
  readonly kind: "run" | "exec";
  readonly service: string;
  readonly command: readonly string[];
  readonly image: string;
  readonly exitCode: number;
  readonly seconds: number;
  readonly tty: boolean;
}

/** Appends to `<logs>/<project>/<env>/runs.jsonl` (the deploy logs' directory). */
export function recordRun(file: string, r: RunRecord): void {
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, `${JSON.stringify(r)}\n`, { mode: 0o600 });
}
