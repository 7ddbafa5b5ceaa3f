import type { Command } from "commander";
import { createInterface } from "node:readline/promises";
import { Writable } from "node:stream";
import { referencedSecrets, SECRET_NAME_RE, type Config } from "../config/index.js";
import { ExitCode, VisibleError } from "../errors.js";
import { resolveStackTarget, type StackOptions } from "./context.js";
import { stackOptions } from "./stack-flags.js";
import { printJson } from "./render.js";
import { formatTable } from "./table.js";

/**
 * `platform secrets set|list|unset`: an environment's secrets, for `${secrets.NAME}` in env.
 * Values come from standard input or a hidden prompt, never from arguments (which any
 * process can read), and are never printed.
 */

function checkName(name: string): string {
  if (!SECRET_NAME_RE.test(name)) {
    throw new VisibleError(`secret name "${name}" is not valid`, { exitCode: ExitCode.usage, details: ["  hint: letters, digits and _, not starting with a digit, e.g. API_TOKEN"] });
  }
  return name;
}

/** The services whose env uses the secret: the ones the next deploy rebuilds and replaces. */
function usersOf(config: Config, name: string): string[] {
  return Object.values(config.services).filter((s) => referencedSecrets({ ...config, services: { [s.name]: s } }).includes(name)).map((s) => s.name);
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

/** A terminal gets a prompt that echoes nothing; anything else is read whole (one trailing newline dropped). */
async function readValue(name: string): Promise<string> {
  if (!process.stdin.isTTY) return (await readAll(process.stdin)).replace(/\r?\n$/, "");
  process.stderr.write(`Value of ${name} (not shown): `);
  const silent = new Writable({ write: (_c, _e, done) => done() });
  const rl = createInterface({ input: process.stdin, output: silent, terminal: true });
  try {
    return await rl.question("");
  } finally {
    rl.close();
    process.stderr.write("\n");
  }
}

async function runSet(name: string, o: StackOptions): Promise<void> {
  checkName(name);
  const { requireCredentials } = await import("../engine/credentials.js");
  const creds = requireCredentials();
  const t = await resolveStackTarget(o, true);
  const value = await readValue(name);
  if (value === "") throw new VisibleError(`no value for ${name} (standard input was empty); nothing was changed`, { exitCode: ExitCode.usage, details: ["  hint: echo -n \"$VALUE\" | platform secrets set NAME, or run it in a terminal to be prompted; platform secrets unset NAME removes one"] });
  const { setSecret } = await import("../engine/secrets.js");
  await setSecret(t.project, t.env, creds, name, value);
  const users = usersOf(t.config, name);
  if (o.json) { printJson({ project: t.project, env: t.env, name, set: true, usedBy: users }); return; }
  process.stdout.write(`✓ Secret ${name} set for ${t.project} (${t.env})\n`);
  process.stdout.write(users.length
    ? `  used by ${users.join(", ")}: the next platform deploy rebuilds and replaces ${users.length === 1 ? "it" : "them"}, and nothing else\n`
    : `  no service uses it yet: add \${secrets.${name}} to a service's env in platform.yml\n`);
}

async function runList(o: StackOptions): Promise<void> {
  const t = await resolveStackTarget(o);
  const { readSecretNames } = await import("../engine/secret-names.js");
  const set = readSecretNames(t.project, t.env);
  const names = [...new Set([...set.keys(), ...referencedSecrets(t.config)])].sort();
  const rows = names.map((n) => ({ name: n, set: set.has(n), setAt: set.get(n) ?? null, usedBy: usersOf(t.config, n) }));
  if (o.json) { printJson({ project: t.project, env: t.env, secrets: rows }); return; }
  if (rows.length === 0) { process.stdout.write(`${t.project} (${t.env}) has no secrets\n`); return; }
  process.stdout.write(formatTable(["NAME", "SET", "USED BY"], rows.map((r) => [r.name, r.set ? (r.setAt ?? "yes") : "not set", r.usedBy.join(", ") || "-"])));
  if (rows.some((r) => !r.set)) process.exitCode = ExitCode.failed;
}

async function runUnset(name: string, o: StackOptions): Promise<void> {
  checkName(name);
  const { requireCredentials } = await import("../engine/credentials.js");
  const creds = requireCredentials();
  const t = await resolveStackTarget(o);
  const { unsetSecret } = await import("../engine/secrets.js");
  const removed = await unsetSecret(t.project, t.env, creds, name);
  const users = usersOf(t.config, name);
  if (o.json) { printJson({ project: t.project, env: t.env, name, removed, usedBy: users }); return; }
  process.stdout.write(removed ? `✓ Secret ${name} removed from ${t.project} (${t.env})\n` : `${t.project} (${t.env}) has no secret ${name}\n`);
  if (users.length) process.stdout.write(`  still used by ${users.join(", ")}: platform deploy stops before building until it is set again\n`);
}

export function registerSecrets(program: Command): void {
  const secrets = program.command("secrets")
    .description("an environment's secrets for ${secrets.NAME} in env: set, list, unset (values are never shown)");
  stackOptions(secrets.command("set").argument("<name>", "secret name, e.g. API_TOKEN"))
    .description("set a secret from standard input, or a hidden prompt in a terminal")
    .option("-y, --yes", "create the project without asking (CI)")
    .action(runSet);
  stackOptions(secrets.command("list"))
    .description("the secrets' names, when each was set and which services use them (exit 1 when one in use is not set)")
    .action(runList);
  stackOptions(secrets.command("unset").argument("<name>", "secret name"))
    .description("remove a secret")
    .action(runUnset);
}
