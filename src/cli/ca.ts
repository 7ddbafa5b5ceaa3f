import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { ExitCode, VisibleError } from "../errors.js";

/** `platform ca`: the edge's local root certificate, to trust its HTTPS URLs (README "Trusting the CA"). */
export async function readEdgeCa(): Promise<string> {
  const { requireEngine, execOutput } = await import("../runtime/docker.js");
  await requireEngine();
  const { EDGE_CA_PATH, edgeContainer } = await import("../plan/constants.js");
  try {
    const r = await execOutput(edgeContainer(), ["cat", EDGE_CA_PATH]);
    if (r.exitCode === 0 && r.output.includes("BEGIN CERTIFICATE")) return r.output;
  } catch { /* no edge container: below */ }
  throw new VisibleError("no edge CA yet: deploy a project with a public service first (platform deploy)", { exitCode: ExitCode.failed });
}

export function registerCa(program: Command): void {
  program.command("ca")
    .description("print the local CA certificate of the HTTPS edge (PEM), or write it to a file")
    .option("-o, --export <file>", "write the PEM to this file")
    .action(async (o: { export?: string }) => {
      const pem = await readEdgeCa();
      if (o.export) {
        writeFileSync(o.export, pem);
        process.stdout.write(`✓ wrote the platform CA to ${o.export}\n`);
      } else process.stdout.write(pem);
    });
}
