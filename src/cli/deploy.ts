import type { Command } from "commander";
import { resolveStackTarget, type StackOptions } from "./context.js";
import { pickRenderer, printJson } from "./render.js";

interface DeployOptions extends StackOptions {
  appsDomain?: string;
  httpsPort?: string;
}

/** Options every stack command takes. */
export function stackOptions(cmd: Command, fileShortFlag = true): Command {
  return cmd
    .option(fileShortFlag ? "-f, --file <path>" : "--file <path>", "the config file", "platform.yml")
    .option("-e, --env <name>", "environment (one Pulumi stack each)", "preview")
    .option("-p, --project <name>", "project name (default: the directory's project, else name in platform.yml)")
    .option("--json", "machine-readable output");
}

async function runDeploy(o: DeployOptions): Promise<void> {
  const { requireCredentials } = await import("../engine/credentials.js");
  const creds = requireCredentials();
  const { requireEngine } = await import("../runtime/docker.js");
  await requireEngine();
  const t = await resolveStackTarget(o, true);
  // Plan once here: a source layout no recipe can build stops us before the engine starts.
  const { buildPlan } = await import("../plan/build-plan.js");
  const { scanSources } = await import("../plan/scan-source.js");
  const { baseImages } = await import("../settings.js");
  buildPlan(t.config, { project: t.project, env: t.env, projectDir: t.projectDir, appsDomain: "localhost", httpsPort: 443, images: baseImages() }, await scanSources(t.config, t.projectDir));
  const { deploy } = await import("../engine/deploy.js");
  const { createDeployView } = await import("./deploy-view.js");
  const kind = pickRenderer(o, process.env, Boolean(process.stdout.isTTY));
  const view = createDeployView(kind, Object.keys(t.config.services));
  const httpsPort = o.httpsPort ?? process.env.PLATFORM_HTTPS_PORT;
  try {
    const { record, urls } = await deploy({
      configFile: t.configFile, project: t.project, env: t.env, creds, onProgress: (e) => view.progress(e),
      appsDomain: o.appsDomain ?? process.env.PLATFORM_APPS_DOMAIN,
      httpsPort: httpsPort ? Number(httpsPort) : undefined,
    });
    await view.close();
    if (kind === "json") {
      printJson({ type: "result", outcome: "succeeded", deploymentId: record.id, project: t.project, env: t.env, urls, changes: record.changes });
      return;
    }
    process.stdout.write(`Deployment complete (${record.id})\n`);
    for (const [service, url] of Object.entries(urls)) process.stdout.write(`${service}: ${url}\n`);
  } catch (e) {
    await view.close();
    if (kind === "json") printJson({ type: "result", outcome: "failed", message: (e as Error).message });
    throw e;
  }
}

export function registerDeploy(program: Command): void {
  stackOptions(program.command("deploy"))
    .description("build, migrate, start and serve every service of platform.yml on the local Docker engine")
    .option("-y, --yes", "create the project without asking (CI)")
    .option("--apps-domain <domain>", "base domain of public URLs (env PLATFORM_APPS_DOMAIN)", undefined)
    .option("--https-port <port>", "port of the HTTPS edge on 127.0.0.1 (env PLATFORM_HTTPS_PORT; default 443)")
    .action(runDeploy);
}
