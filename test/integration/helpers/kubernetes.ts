import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { clusterLayout, readClusterToolchain } from "../../../src/test-cluster/layout.js";
import { runCli } from "./cli.js";
import { noteClusterStarted } from "./cluster-marker.js";
import { ROOT } from "./env.js";
import { awaitKubernetesToolchain } from "./kubernetes-toolchain.js";

/** Shared by the Kubernetes target's tests: the test cluster, started through the real CLI (`args`: cluster up's flags), and kubectl on it. */
export async function clusterUp(args: string[] = []): Promise<void> {
  await awaitKubernetesToolchain();
  const r = await runCli(["cluster", "up", "--json", ...args], { cwd: ROOT, env: {} });
  if (r.code !== 0) throw new Error(`platform cluster up exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  noteClusterStarted(r.stdout);
}

function kubectlArgv(args: string[]): [string, string[]] {
  const tc = readClusterToolchain();
  if (!tc) throw new Error("no Kubernetes toolchain: platform cluster up should have built it");
  return [`${tc.binDir}/kubectl`, ["--kubeconfig", clusterLayout().adminKubeconfig, ...args]];
}

export function kubectl(...args: string[]): string {
  const [cmd, argv] = kubectlArgv(args);
  return execFileSync(cmd, argv, { encoding: "utf8", timeout: 60_000, stdio: ["ignore", "pipe", "pipe"] });
}

/** kubectl without blocking the event loop (a load running beside it keeps sending), for long commands (a drain). */
export async function kubectlAsync(timeoutMs: number, ...args: string[]): Promise<string> {
  const [cmd, argv] = kubectlArgv(args);
  return (await promisify(execFile)(cmd, argv, { encoding: "utf8", timeout: timeoutMs })).stdout;
}

/** Names of a service's running pods (terminating ones left out), sorted. */
export function podsOf(namespace: string, service: string): string[] {
  const out = kubectl("-n", namespace, "get", "pods", "-l", `app.kubernetes.io/name=${service}`, "-o", "json");
  const pods = (JSON.parse(out) as { items: { metadata: { name: string; deletionTimestamp?: string }; status: { phase: string } }[] })
    .items;
  return pods
    .filter((p) => !p.metadata.deletionTimestamp && p.status.phase === "Running")
    .map((p) => p.metadata.name)
    .sort();
}
