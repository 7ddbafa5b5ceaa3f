import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { readClusterToolchain } from "../../test-cluster/layout.js";

const run = promisify(execFile);

/** kubectl (the test cluster's, else the one on PATH) on a stack's cluster: its standard output. */
export async function kubectlOn(kubeconfig: string, args: string[]): Promise<string> {
  const tc = readClusterToolchain();
  const bin = tc ? join(tc.binDir, "kubectl") : "kubectl";
  return (await run(bin, ["--kubeconfig", kubeconfig, ...args], { maxBuffer: 16 * 1024 * 1024 })).stdout;
}
