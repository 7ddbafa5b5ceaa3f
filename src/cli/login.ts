import type { Command } from "commander";
import { printJson } from "./render.js";

/** `platform login`, `logout`, `whoami`: the state backend and its secrets passphrase. */
export function registerLogin(program: Command): void {
  program.command("login")
    .description("set up the CLI: a Pulumi state backend (default: a directory in the platform home) and its secrets passphrase")
    .option("--backend <url>", "any Pulumi backend: file:///shared/dir, s3://bucket, https://api.pulumi.com")
    .option("--passphrase-stdin", "read the secrets passphrase from standard input (to share one with a team)")
    .action(async (o: { backend?: string; passphraseStdin?: boolean }) => {
      const { writeCredentials, credentialsFile } = await import("../engine/credentials.js");
      const passphrase = o.passphraseStdin ? (await readStdin()).trim() : undefined;
      const c = writeCredentials(o.backend, passphrase || undefined);
      process.stdout.write(`✓ Logged in as ${c.user}\n  backend: ${c.backendUrl}\n  credentials: ${credentialsFile()} (mode 0600)\n`);
    });

  program.command("logout")
    .description("forget the credentials (the state and deployed services stay)")
    .action(async () => {
      const { removeCredentials } = await import("../engine/credentials.js");
      process.stdout.write(removeCredentials() ? "✓ Logged out\n" : "Not logged in\n");
    });

  program.command("whoami")
    .description("show who the CLI acts as and where the state is kept")
    .option("--json", "machine-readable output")
    .action(async (o: { json?: boolean }) => {
      const { requireCredentials } = await import("../engine/credentials.js");
      const c = requireCredentials();
      if (o.json) printJson({ user: c.user, backend: c.backendUrl, source: c.source });
      else process.stdout.write(`${c.user}\nbackend: ${c.backendUrl}${c.source === "env" ? " (from PLATFORM_BACKEND_URL)" : ""}\n`);
    });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
