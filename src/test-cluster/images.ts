import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { ExitCode, VisibleError } from "../errors.js";
import { qualifiedRef } from "./configs.js";
import { runTool, systemToolEnv } from "./exec.js";
import type { ClusterLayout, ClusterToolchain } from "./layout.js";
import { clusterNodes, nodeCount, nodeLayout } from "./nodes.js";

/**
 * Images reach the test cluster without a registry: a docker-archive tar (what `docker save`
 * writes, or what the set-up wrote) is imported into the cluster's containerd, in the
 * namespace the kubelet uses. Pods then name the image with `imagePullPolicy: Never`.
 */
function ctrArgs(l: ClusterLayout, ...args: string[]): string[] {
  return ["--address", l.containerdSocket, "-n", "k8s.io", ...args];
}

/** Every node's containerd that runs now (its socket is there), the first node's first. */
export function nodeRuntimes(l: ClusterLayout): ClusterLayout[] {
  return clusterNodes(nodeCount(l))
    .map((n) => nodeLayout(l, n))
    .filter((nl, i) => i === 0 || existsSync(nl.containerdSocket));
}

export async function hasImage(l: ClusterLayout, tc: ClusterToolchain, ref: string): Promise<boolean> {
  const r = await runTool(tc.ctr, ctrArgs(l, "images", "ls", "-q"), { timeoutMs: 30_000 });
  return r.stdout.split("\n").includes(qualifiedRef(ref));
}

/** The images every node has before a pod asks for them (no registry has them): sandbox, DNS, cert-manager's solver. */
export function nodeImages(tc: ClusterToolchain): { ref: string; archive: string }[] {
  return [tc.pauseImage, tc.corednsImage, tc.certManager.solverImage];
}

/** Imports an archive unless the image is there already. */
export async function importArchive(l: ClusterLayout, tc: ClusterToolchain, image: { ref: string; archive: string }): Promise<boolean> {
  if (await hasImage(l, tc, image.ref)) return false;
  await runTool(tc.ctr, ctrArgs(l, "images", "import", image.archive), { timeoutMs: 300_000, what: "containerd's ctr" });
  return true;
}

/**
 * Copies images one node's containerd has into another's (`ctr export | ctr import`): refs the
 * source lacks, or the target has, are skipped. Best effort: an image that cannot be exported
 * (a pulled image whose other platforms' content was never fetched) is reported, not fatal.
 */
export async function copyImages(
  from: ClusterLayout,
  to: ClusterLayout,
  tc: ClusterToolchain,
  refs: readonly string[],
): Promise<{ copied: string[]; failed: string[] }> {
  const copied: string[] = [];
  const failed: string[] = [];
  for (const ref of refs) {
    if (!(await hasImage(from, tc, ref)) || (await hasImage(to, tc, ref))) continue;
    const exp = spawn(tc.ctr, ctrArgs(from, "images", "export", "-", qualifiedRef(ref)), {
      stdio: ["ignore", "pipe", "pipe"],
      env: systemToolEnv(),
    });
    let err = "";
    exp.stderr.on("data", (d) => {
      err += d;
    });
    try {
      await importArchiveStream(to, tc, ref, exp.stdout, () => `ctr export: ${err}`);
      copied.push(ref);
    } catch {
      failed.push(ref);
    }
  }
  return { copied, failed };
}

/**
 * Copies an image from the Docker engine into the cluster: `docker save IMAGE | ctr images
 * import -`. For images the platform builds with Docker, or the local base images.
 */
export async function importDockerImage(l: ClusterLayout, tc: ClusterToolchain, image: string, dockerCli = "docker"): Promise<void> {
  const save = spawn(dockerCli, ["save", image], { stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  save.stderr.on("data", (d) => {
    err += d;
  });
  await importArchiveStream(l, tc, image, save.stdout, () => `docker save: ${err}`);
  save.kill();
}

/**
 * Imports a docker-archive stream (`docker save`, or the Engine API's image export) into the
 * cluster. ctr's exit decides: it stops reading at the archive's end-of-archive blocks, so the
 * producer may never see its own end (its last padding unread) and is only drained afterwards.
 * `why` says what the producer reported, for the error message.
 */
export async function importArchiveStream(
  l: ClusterLayout,
  tc: ClusterToolchain,
  image: string,
  archive: NodeJS.ReadableStream,
  why: () => string,
): Promise<void> {
  const ctr = spawn(tc.ctr, ctrArgs(l, "images", "import", "-"), { stdio: ["pipe", "pipe", "pipe"], env: systemToolEnv() });
  let err = "";
  ctr.stderr.on("data", (d) => {
    err += d;
  });
  ctr.stdout.resume();
  ctr.stdin.on("error", () => {}); // EPIPE once ctr has what it needs
  archive.pipe(ctr.stdin);
  const imported = await exitOf(ctr);
  archive.unpipe(ctr.stdin);
  archive.resume();
  if (imported !== 0) {
    throw new VisibleError(`importing ${image} from Docker into the cluster failed (ctr import: ${imported})`, {
      exitCode: ExitCode.environment,
      details: `${why()}${err}`
        .trimEnd()
        .split("\n")
        .slice(-10)
        .map((s) => `  ${s}`),
    });
  }
}

function exitOf(p: ChildProcess): Promise<number | string> {
  return new Promise((resolve) => {
    p.on("error", (e) => resolve(e.message));
    p.on("close", (code) => resolve(code ?? -1));
  });
}
