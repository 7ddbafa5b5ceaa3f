import { createInterface } from "node:readline/promises";
import { Writable } from "node:stream";
import { type Config, referencedSecrets, SECRET_NAME_RE } from "../config/index.js";
import { requireCredentials } from "../engine/credentials.js";
import { readSecretNames } from "../engine/secret-names.js";
import { setSecret, unsetSecret } from "../engine/secrets.js";
import { ExitCode, VisibleError } from "../errors.js";
import { resolveStack } from "./context.js";
import { printJson } from "./render.js";
import { formatTable } from "./table.js";
import type { StackOptions } from "./stack-options.js";

function checkName(name: string): string {
  if (!SECRET_NAME_RE.test(name)) {
    throw new VisibleError(`secret name "${name}" is not valid`, {
      exitCode: ExitCode.usage,
      details: ["  hint: letters, digits and _, not starting with a digit, e.g. API_TOKEN"],
    });
  }
  return name;
}

/** The services whose env uses the secret: the ones the next deploy rebuilds and replaces. */
function usersOf(config: Config, name: string): string[] {
  return Object.values(config.services)
    .filter((s) => referencedSecrets({ ...config, services: { [s.name]: s } }).includes(name))
    .map((s) => s.name);
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Never from an argument, which any process can read: a terminal gets a prompt that echoes
 * nothing; anything else is read whole (one trailing newline dropped).
 */
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

export async function runSet(name: string, o: StackOptions): Promise<void> {
  checkName(name);
  const creds = requireCredentials();
  const t = await resolveStack(o, true);
  const value = await readValue(name);
  if (value === "")
    throw new VisibleError(`no value for ${name} (standard input was empty); nothing was changed`, {
      exitCode: ExitCode.usage,
      details: [
        '  hint: echo -n "$VALUE" | platform secrets set NAME, or run it in a terminal to be prompted; platform secrets unset NAME removes one',
      ],
    });
  await setSecret(t.project, t.env, creds, name, value);
  const users = usersOf(t.config, name);
  if (o.json) {
    printJson({ project: t.project, env: t.env, name, set: true, usedBy: users });
    return;
  }
  process.stdout.write(`✓ Secret ${name} set for ${t.project} (${t.env})\n`);
  process.stdout.write(
    users.length
      ? `  used by ${users.join(", ")}: the next platform deploy rebuilds and replaces ${users.length === 1 ? "it" : "them"}, and nothing else\n`
      : `  no service uses it yet: add \${secrets.${name}} to a service's env in platform.yml\n`,
  );
}

export async function runList(o: StackOptions): Promise<void> {
  const t = await resolveStack(o);
  const set = readSecretNames(t.project, t.env);
  const names = [...new Set([...set.keys(), ...referencedSecrets(t.config)])].sort();
  const rows = names.map((n) => ({ name: n, set: set.has(n), setAt: set.get(n) ?? null, usedBy: usersOf(t.config, n) }));
  if (o.json) {
    printJson({ project: t.project, env: t.env, secrets: rows });
    return;
  }
  if (rows.length === 0) {
    process.stdout.write(`${t.project} (${t.env}) has no secrets\n`);
    return;
  }
  process.stdout.write(
    formatTable(
      ["NAME", "SET", "USED BY"],
      rows.map((r) => [r.name, r.set ? (r.setAt ?? "yes") : "not set", r.usedBy.join(", ") || "-"]),
    ),
  );
  if (rows.some((r) => !r.set)) process.exitCode = ExitCode.failed;
}

export async function runUnset(name: string, o: StackOptions): Promise<void> {
  checkName(name);
  const creds = requireCredentials();
  const t = await resolveStack(o);
  const removed = await unsetSecret(t.project, t.env, creds, name);
  const users = usersOf(t.config, name);
  if (o.json) {
    printJson({ project: t.project, env: t.env, name, removed, usedBy: users });
    return;
  }
  process.stdout.write(
    removed ? `✓ Secret ${name} removed from ${t.project} (${t.env})\n` : `${t.project} (${t.env}) has no secret ${name}\n`,
  );
  if (users.length)
    process.stdout.write(`  still used by ${users.join(", ")}: platform deploy stops before building until it is set again\n`);
}
