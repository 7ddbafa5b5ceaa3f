import { writeFileSync } from "node:fs";
import { ExitCode, VisibleError } from "../errors.js";
import { EDGE_CA_PATH, edgeContainer } from "../plan/constants.js";
import { execOutput, requireEngine } from "../runtime/docker.js";

/** The edge's local root certificate (PEM), read from its container. */
async function readEdgeCa(): Promise<string> {
  await requireEngine();
  try {
    const r = await execOutput(edgeContainer(), ["cat", EDGE_CA_PATH]);
    if (r.exitCode === 0 && r.output.includes("BEGIN CERTIFICATE")) return r.output;
  } catch {
    /* no edge container: below */
  }
  throw new VisibleError("no edge CA yet: deploy a project with a public service first (platform deploy)", { exitCode: ExitCode.failed });
}

export async function runCa(o: { export?: string }): Promise<void> {
  const pem = await readEdgeCa();
  if (o.export) {
    writeFileSync(o.export, pem);
    process.stdout.write(`✓ wrote the platform CA to ${o.export}\n`);
  } else process.stdout.write(pem);
}
