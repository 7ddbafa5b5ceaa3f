import type { Command } from "commander";

/** `platform ca`: the edge's local root certificate, to trust its HTTPS URLs (docs/operations/trusting-the-ca.md). */
export function registerCa(program: Command): void {
  program
    .command("ca")
    .description("print the local CA certificate of the HTTPS edge (PEM), or write it to a file")
    .option("-o, --export <file>", "write the PEM to this file")
    .action(async (o) => (await import("./ca-action.js")).runCa(o));
}
