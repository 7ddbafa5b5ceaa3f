import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { ResourceHandler } from "../handler.js";
import { kubectlOn } from "./kubectl.js";
import type { MigrationOutcomeInputs } from "../contract/kubernetes-inputs.js";

export type { MigrationOutcomeInputs };

interface JobJson {
  status: { conditions?: { type: string; status: string }[] };
}

interface PodJson {
  items: { status: { containerStatuses?: { name: string; state?: { terminated?: { exitCode: number } } }[] } }[];
}

const POLL_MS = 1000;

/** Complete or Failed, once the Job controller says so; undefined while it runs. */
export function jobEnd(j: JobJson): "Complete" | "Failed" | undefined {
  const done = j.status.conditions?.find((c) => (c.type === "Complete" || c.type === "Failed") && c.status === "True");
  return done?.type as "Complete" | "Failed" | undefined;
}

async function waitForEnd(i: MigrationOutcomeInputs): Promise<"Complete" | "Failed"> {
  // The deadline ends the Job; the margin covers the image pull and the dependency wait before it.
  const deadline = Date.now() + (i.timeoutSeconds + 120) * 1000;
  for (;;) {
    const j = JSON.parse(await kubectlOn(i.kubeconfig, ["-n", i.namespace, "get", "job", i.job, "-o", "json"])) as JobJson;
    const end = jobEnd(j);
    if (end) return end;
    if (Date.now() > deadline) throw new Error(`migration Job ${i.job} did not end within ${i.timeoutSeconds + 120}s`);
    await sleep(POLL_MS);
  }
}

/** The migrate container's exit code, from the Job's pod (-1 when the pod is gone: deadline, eviction). */
async function exitCodeOf(i: MigrationOutcomeInputs): Promise<number> {
  const pods = JSON.parse(
    await kubectlOn(i.kubeconfig, ["-n", i.namespace, "get", "pods", "-l", `job-name=${i.job}`, "-o", "json"]),
  ) as PodJson;
  const codes = pods.items.flatMap((p) => (p.status.containerStatuses ?? []).filter((c) => c.name === "migrate"));
  return codes.map((c) => c.state?.terminated?.exitCode).find((x) => x !== undefined) ?? -1;
}

export const migrationOutcomeHandler: ResourceHandler = {
  inputKeys: ["kubeconfig", "namespace", "job"],
  updatable: ["kubeconfig"],
  async create(_urn, inputs) {
    const i = inputs as unknown as MigrationOutcomeInputs;
    const end = await waitForEnd(i);
    const exitCode = end === "Complete" ? 0 : await exitCodeOf(i);
    const output = await kubectlOn(i.kubeconfig, ["-n", i.namespace, "logs", `job/${i.job}`, "-c", "migrate"]).catch(
      (e: Error) => `(no output: ${e.message.split("\n")[0]})`,
    );
    mkdirSync(i.logDir, { recursive: true, mode: 0o700 });
    const logFile = join(i.logDir, `${i.job}-${Date.now()}.log`);
    writeFileSync(logFile, output, { mode: 0o600 });
    return { id: i.job, outs: { exitCode, logFile } };
  },
  async read(_id, props) {
    return props;
  },
  async update(_id, _olds, news) {
    return news;
  },
  async delete() {},
};
