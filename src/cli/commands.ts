import { connectEngine } from "../docker-ssh.js";
import { hasExpiredEnvironments } from "../engine/env-expiry.js";
import { Command } from "commander";
import { registerCa } from "./ca.js";
import { registerNotify } from "./notify.js";
import { registerCluster } from "./cluster.js";
import { registerDeploy } from "./deploy.js";
import { registerDb } from "./db.js";
import { registerDeployments } from "./deployments.js";
import { registerDestroy } from "./destroy.js";
import { registerEnvs } from "./envs.js";
import { registerDoctor } from "./doctor.js";
import { registerLink } from "./link.js";
import { registerLogin } from "./login.js";
import { registerLogs } from "./logs.js";
import { registerPlan } from "./plan.js";
import { registerRollback } from "./rollback.js";
import { registerRun } from "./run.js";
import { registerCron } from "./cron.js";
import { registerSecrets } from "./secrets.js";
import { registerStatus } from "./status.js";
import { registerDomains } from "./domains.js";
import { registerStudio } from "./studio.js";
import { registerValidate } from "./validate.js";

/** Commands that never talk to the engine: they need no connection to a server. */
const OFFLINE_COMMANDS = new Set(["login", "validate", "link", "secrets", "cluster"]);

/** The top-level command a (sub)command belongs to: `secrets` for `platform secrets set`. */
function topLevel(command: Command): string {
  let c = command;
  while (c.parent?.parent) c = c.parent;
  return c.name();
}

/**
 * Builds the commander program. A command's module only defines its flags, and its action
 * imports the module that does the work (`<command>-action.ts`, which imports engine and
 * runtime statically): `--help` loads no command's work, and `validate` never loads Pulumi
 * or dockerode.
 */
export function buildProgram(version: string): Command {
  const program = new Command("platform")
    .description("Deploy the services of a platform.yml (FastAPI, Next.js, PostgreSQL) with Pulumi")
    .version(version, "-V, --version")
    .option("--verbose", "show stack traces for internal errors")
    .showHelpAfterError()
    .exitOverride();
  // DOCKER_HOST=ssh://: one SSH connection for the command and what it starts (docker-ssh.ts).
  program.hook("preAction", async (_program, command) => {
    if (OFFLINE_COMMANDS.has(topLevel(command))) return;
    await connectEngine();
    // Environments deployed with --expires whose time has come go first (env-expiry.ts).
    if (hasExpiredEnvironments()) await (await import("./expiry-action.js")).removeExpired();
  });
  registerLogin(program);
  registerValidate(program);
  registerPlan(program);
  registerDeploy(program);
  registerSecrets(program);
  registerLink(program);
  registerStatus(program);
  registerDomains(program);
  registerLogs(program);
  registerRun(program);
  registerCron(program);
  registerDeployments(program);
  registerRollback(program);
  registerStudio(program);
  registerDb(program);
  registerDestroy(program);
  registerEnvs(program);
  registerCa(program);
  registerNotify(program);
  registerDoctor(program);
  registerCluster(program);
  return program;
}
