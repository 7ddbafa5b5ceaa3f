import { spawn } from "node:child_process";
import { VisibleError } from "../errors.js";
import type { Credentials } from "./credentials.js";
import { acquireStackLock } from "./lock.js";
import { readSecretNames, secretKey, SECRETS_SET_AT_KEY } from "./secret-names.js";
import { engineEnv, openStack, pulumiCommand, selectExistingStack, writeWorkspace } from "./workspace.js";

/**
 * The environment's secrets, kept as encrypted Pulumi config values of its stack
 * (`secrets:NAME`, encrypted with the login's passphrase), so `${secrets.NAME}` reaches the
 * program as a Pulumi secret and stays encrypted in the state. Each operation holds the
 * stack's lock: a deploy never reads the settings while they change.
 */

/**
 * `pulumi config set --secret` with the value on standard input: the Automation API's
 * setConfig passes it as an argument, which every process on the machine can read.
 */
async function setSecretValue(project: string, env: string, creds: Credentials, name: string, value: string): Promise<void> {
  const cmd = await pulumiCommand();
  const args = ["config", "set", "--secret", secretKey(name), "--stack", env, "--non-interactive"];
  await new Promise<void>((resolve, reject) => {
    const child = spawn(cmd.command, args, {
      cwd: writeWorkspace(project),
      env: { ...process.env, ...engineEnv(creds) },
      stdio: ["pipe", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new VisibleError(`could not store secret ${name}: ${stderr.trim() || `pulumi exited ${code}`}`)),
    );
    // Pulumi drops one trailing newline of what it reads: keep the value's own last newline.
    child.stdin.end(value.endsWith("\n") ? `${value}\n` : value);
  });
}

async function writeSetAt(
  project: string,
  env: string,
  creds: Credentials,
  change: (times: Record<string, string>) => void,
): Promise<void> {
  const stack = await openStack(project, env, creds);
  const times: Record<string, string> = {};
  for (const [n, at] of readSecretNames(project, env)) if (at) times[n] = at;
  change(times);
  await stack.setConfig(SECRETS_SET_AT_KEY, { value: JSON.stringify(times), secret: false });
}

/** Sets (or replaces) a secret of an environment, creating its stack when needed. */
export async function setSecret(project: string, env: string, creds: Credentials, name: string, value: string): Promise<void> {
  const lock = acquireStackLock(project, env, "secrets set");
  try {
    await openStack(project, env, creds);
    await setSecretValue(project, env, creds, name, value);
    await writeSetAt(project, env, creds, (t) => {
      t[name] = new Date().toISOString();
    });
  } finally {
    lock.release();
  }
}

/** Removes a secret; false when the environment did not have it. */
export async function unsetSecret(project: string, env: string, creds: Credentials, name: string): Promise<boolean> {
  const lock = acquireStackLock(project, env, "secrets unset");
  try {
    if (!readSecretNames(project, env).has(name)) return false;
    const stack = await selectExistingStack(project, env, creds);
    if (!stack) return false;
    await stack.removeConfig(secretKey(name));
    await writeSetAt(project, env, creds, (t) => {
      delete t[name];
    });
    return true;
  } finally {
    lock.release();
  }
}
