import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { demuxLogs, docker } from "../../docker-client.js";
import { putFiles } from "./files.js";
import { limits } from "./hardening.js";
import type { ResourceHandler } from "../handler.js";
import { diagnosisLine } from "../contract/diagnose-start.js";
import type { JobInputs } from "../contract/docker-inputs.js";

export type { JobInputs };

const TAIL_LINES = 30;

export class JobError extends Error {}

async function runJob(j: JobInputs): Promise<{ exitCode: number; output: string; timedOut: boolean; seconds: number }> {
  const [first, ...rest] = j.networks;
  const t0 = Date.now();
  const c = await docker().createContainer({
    name: `${j.name}-${t0.toString(36)}`,
    Image: j.image,
    Cmd: j.command,
    Env: Object.entries(j.env ?? {}).map(([k, v]) => `${k}=${v}`),
    Labels: { ...(j.labels ?? {}), "platform.managed": "true", "platform.job": "true" },
    HostConfig: { NetworkMode: first?.name, Init: true, ...limits(j) },
  });
  try {
    for (const n of rest) await docker().getNetwork(n.name).connect({ Container: c.id });
    await putFiles(c, j.files ?? [], j.image);
    await c.start();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((r) => {
      timer = setTimeout(() => r("timeout"), j.timeoutSeconds * 1000);
    });
    const result = await Promise.race([c.wait() as Promise<{ StatusCode: number }>, timeout]);
    clearTimeout(timer);
    const timedOut = result === "timeout";
    if (timedOut) await c.kill().catch(() => undefined);
    const output = demuxLogs((await c.logs({ stdout: true, stderr: true })) as unknown as Buffer);
    const exitCode = timedOut ? -1 : (result as { StatusCode: number }).StatusCode;
    return { exitCode, output, timedOut, seconds: (Date.now() - t0) / 1000 };
  } finally {
    await c.remove({ force: true, v: true }).catch(() => undefined);
  }
}

export const jobHandler: ResourceHandler = {
  // Any change runs the job again (a new image brings new migrations); new limits or files alone do not.
  inputKeys: ["name", "image", "command", "env", "networks"],

  async create(_urn, inputs) {
    const j = inputs as unknown as JobInputs;
    const r = await runJob(j);
    mkdirSync(j.logDir, { recursive: true, mode: 0o700 });
    const logFile = join(j.logDir, `${j.name}-${Date.now()}.log`);
    writeFileSync(logFile, r.output, { mode: 0o600 });
    const failed = r.timedOut || r.exitCode !== 0;
    if (failed && !j.continueOnFailure) {
      const why = r.timedOut ? `did not finish within its timeout of ${j.timeoutSeconds}s` : `exited with code ${r.exitCode}`;
      const lines = r.output.trimEnd().split("\n").slice(-TAIL_LINES).join("\n");
      throw new JobError(
        `migration \`${j.command.join(" ")}\` ${why}\n${diagnosisLine(r.output, { service: j.labels?.["platform.service"] })}--- migration output (last ${TAIL_LINES} lines) ---\n${lines || "(no output)"}\nfull log: ${logFile}`,
      );
    }
    return { id: `${j.name}-${Date.now()}`, outs: { exitCode: r.exitCode, logFile, seconds: r.seconds } };
  },

  async read(_id, props) {
    return props;
  },
  async delete() {},
};
