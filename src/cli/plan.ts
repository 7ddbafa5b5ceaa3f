import type { Command } from "commander";
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { ExitCode, VisibleError } from "../errors.js";
import { linkedProject } from "../engine/links.js";
import { loadValidConfig, type StackOptions, DEFAULT_ENV } from "./context.js";
import { edgeSettings, planSettings, stackOptions } from "./stack-flags.js";
import { checkEnvName, checkProjectName } from "./flags.js";
import type { PreviewState } from "./plan-render.js";

export interface PlanOptions extends StackOptions {
  /** commander's --no-preview: false skips the engine. */
  preview?: boolean;
  appsDomain?: string;
  httpsPort?: string;
}

function readText(path: string): string | undefined {
  try { return readFileSync(path, "utf8"); } catch { return undefined; }
}

/**
 * `platform plan` (and `platform deploy --dry-run`): what the platform decided per service and
 * why, then a Pulumi preview of what a deploy would rebuild, replace or leave alone. Nothing
 * is built, started or linked.
 */
export async function runPlan(o: PlanOptions): Promise<void> {
  const edge = edgeSettings(o, process.env);
  const { configFile, config } = await loadValidConfig(o.file);
  const projectDir = dirname(configFile);
  const env = checkEnvName(o.env ?? DEFAULT_ENV);
  const linked = o.project ? checkProjectName(o.project) : linkedProject(projectDir);
  const project = linked ?? config.name;
  const { buildPlan } = await import("../plan/build-plan.js");
  const { scanSources } = await import("../plan/scan-source.js");
  const plan = buildPlan(config, await planSettings({ project, env, projectDir }, edge), await scanSources(config, projectDir));
  const { buildPlanReport } = await import("../plan/plan-report.js");
  const { readSecretNames } = await import("../engine/secret-names.js");
  const report = buildPlanReport(plan, projectDir, readText, new Set(linked ? readSecretNames(project, env).keys() : []));
  const missing = report.secrets.filter((s) => !s.set).map((s) => s.name);

  let preview: PreviewState = { kind: "skipped" };
  if (o.preview !== false) {
    if (missing.length) {
      preview = { kind: "blocked", reason: `secret${missing.length > 1 ? "s" : ""} ${missing.join(", ")} not set` };
      process.exitCode = ExitCode.failed;
    } else if (!linked) {
      preview = { kind: "not-deployed", reason: `no project is linked to this directory; a first deploy creates "${project}"` };
    } else {
      const { requireCredentials } = await import("../engine/credentials.js");
      const creds = requireCredentials();
      const { requireEngine } = await import("../runtime/docker.js");
      await requireEngine();
      const { previewStack } = await import("../engine/preview.js");
      try {
        const summary = await previewStack(project, env, creds, { configFile, ...edge });
        preview = summary ? { kind: "done", summary } : { kind: "not-deployed", reason: `${project} (${env}) has no stack yet` };
      } catch (e) {
        if (e instanceof VisibleError) throw e;
        preview = { kind: "failed", message: (e as Error).message.split("\n").filter((l) => /error/i.test(l)).slice(-3).join("; ") || "see the engine's output" };
        process.exitCode = ExitCode.failed;
      }
    }
  }
  const { renderPlanJson, renderPlanText } = await import("./plan-render.js");
  process.stdout.write(o.json ? renderPlanJson(report, preview) : renderPlanText(report, preview));
}

export function registerPlan(program: Command): void {
  stackOptions(program.command("plan"))
    .description("what a deploy would do, per service and why: layout, package manager, versions, app, start, build-time variables, fallbacks, and what would be rebuilt, replaced or left alone")
    .option("--no-preview", "skip the Pulumi preview (needs no engine and no login)")
    .option("--apps-domain <domain>", "base domain of public URLs (env PLATFORM_APPS_DOMAIN)")
    .option("--https-port <port>", "port of the HTTPS edge on 127.0.0.1 (env PLATFORM_HTTPS_PORT; default 443)")
    .addHelpText("after", "\nExit codes: 0 planned, 1 invalid platform.yml or the preview failed, 2 usage error, 3 not logged in, 4 no engine.")
    .action(runPlan);
}
