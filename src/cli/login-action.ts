import { credentialsFile, removeCredentials, requireCredentials, writeCredentials } from "../engine/credentials.js";
import { printJson } from "./render.js";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function runLogin(o: { backend?: string; passphraseStdin?: boolean }): Promise<void> {
  const passphrase = o.passphraseStdin ? (await readStdin()).trim() : undefined;
  const c = writeCredentials(o.backend, passphrase || undefined);
  process.stdout.write(`✓ Logged in as ${c.user}\n  backend: ${c.backendUrl}\n  credentials: ${credentialsFile()} (mode 0600)\n`);
}

export function runLogout(): void {
  process.stdout.write(removeCredentials() ? "✓ Logged out\n" : "Not logged in\n");
}

export function runWhoami(o: { json?: boolean }): void {
  const c = requireCredentials();
  if (o.json) printJson({ user: c.user, backend: c.backendUrl, source: c.source });
  else process.stdout.write(`${c.user}\nbackend: ${c.backendUrl}${c.source === "env" ? " (from PLATFORM_BACKEND_URL)" : ""}\n`);
}
