import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { clusterLayout } from "./layout.js";

/**
 * Which cluster a stack deploys to: the stack's `platform:kubeconfig`, else KUBECONFIG, else
 * the platform's test cluster when it exists, else ~/.kube/config. The test cluster is known by
 * its kubeconfig; it gets images imported into its containerd and hostPath volumes.
 */
export function kubernetesCluster(
  setting: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): { kubeconfig: string; testCluster?: { volumesDir: string } } {
  const test = clusterLayout();
  const fromEnv = env.KUBECONFIG?.split(":").find((p) => p !== "");
  const kubeconfig = resolve(
    setting || fromEnv || (existsSync(test.adminKubeconfig) ? test.adminKubeconfig : join(homedir(), ".kube", "config")),
  );
  return kubeconfig === resolve(test.adminKubeconfig)
    ? { kubeconfig, testCluster: { volumesDir: join(test.dir, "volumes") } }
    : { kubeconfig };
}
