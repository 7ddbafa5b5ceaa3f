import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Credentials } from "./credentials.js";
import { linkedDirs } from "./links.js";
import { homePaths } from "../home/layout.js";

/**
 * Who already uses a project name: another directory linked to it, a workspace of it in the
 * platform home, or stacks of it in the state backend. A new project never takes such a
 * name by accident (two directories would then replace each other's services and share a
 * database); joining one is deliberate (`platform link`).
 */
export async function projectUsers(project: string, creds: Credentials, exceptDir?: string): Promise<string[]> {
  const users = linkedDirs(project)
    .filter((d) => d !== exceptDir)
    .map((d) => `directory ${d}`);
  if (users.length) return users;
  if (existsSync(join(homePaths.workspaceDir(project), "deployments"))) return [`deployment history in ${homePaths.workspaceDir(project)}`];
  return (await backendStacks(project, creds)).map((s) => `stack ${project}/${s} in ${creds.backendUrl}`);
}

/** The stacks of a project in the backend: read from the directory of a file backend, else asked of Pulumi. */
export async function backendStacks(project: string, creds: Credentials): Promise<string[]> {
  if (creds.backendUrl.startsWith("file://")) {
    const dir = join(fileURLToPath(creds.backendUrl.replace(/\/*$/, "")), ".pulumi", "stacks", project);
    try {
      return readdirSync(dir)
        .filter((f) => f.endsWith(".json"))
        .map((f) => f.slice(0, -5));
    } catch {
      return [];
    }
  }
  const { LocalWorkspace } = await import("@pulumi/pulumi/automation/index.js");
  const { engineEnv, pulumiCommand } = await import("./workspace.js");
  const workDir = mkdtempSync(join(tmpdir(), "platform-ls-"));
  try {
    const ws = await LocalWorkspace.create({
      workDir,
      projectSettings: { name: project, runtime: "nodejs" },
      pulumiCommand: await pulumiCommand(),
      envVars: engineEnv(creds),
    });
    return (await ws.listStacks()).map((s) => s.name.split("/").pop() as string);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** `base`, else the first of base-2, base-3, ... that nobody uses (kept within the name length limit). */
export async function freeProjectName(base: string, creds: Credentials, maxLength: number): Promise<string> {
  if ((await projectUsers(base, creds)).length === 0) return base;
  for (let n = 2; n < 1000; n++) {
    const suffix = `-${n}`;
    const name = `${base.slice(0, maxLength - suffix.length).replace(/-+$/, "")}${suffix}`;
    if ((await projectUsers(name, creds)).length === 0) return name;
  }
  throw new Error(`no free project name like ${base}`);
}
