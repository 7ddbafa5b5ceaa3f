import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { linkedProject } from "../engine/links.js";
import { readSecretNames } from "../engine/secret-names.js";
import { stackPlanSettings } from "../engine/stack-settings.js";
import { ExitCode } from "../errors.js";
import { unbuiltBaseImages } from "../engine/base-images.js";
import { buildPlan } from "../plan/build-plan.js";
import { buildPlanReport, type PlanReport } from "../plan/plan-report.js";
import type { Plan } from "../plan/types.js";
import { scanSources } from "../plan/scan-source.js";
import { DEFAULT_ENV, loadValidConfig } from "./context.js";
import { checkEnvName, checkProjectName } from "./flags.js";
import { type PreviewState, renderPlanJson, renderPlanText } from "./plan-render.js";
import { resolveEdgeSettings } from "../engine/edge-record.js";
import { edgeSettings } from "./stack-flags.js";
import type { StackOptions } from "./stack-options.js";

export interface PlanOptions extends StackOptions {
  /** commander's --no-preview: false skips the engine. */
  preview?: boolean;
  appsDomain?: string;
  httpsPort?: string;
  edge?: string;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** A line for each service whose base image the first deploy will build. */
function withFirstNeed(plan: Plan, report: PlanReport, unbuilt: readonly string[]): PlanReport {
  if (unbuilt.length === 0) return report;
  const services = report.services.map((r) => {
    const s = plan.services.find((p) => p.name === r.name);
    const base = s?.build?.kind === "recipe" ? s.build.recipe.baseImage : s?.database ? s.image : undefined;
    if (!base || !unbuilt.includes(base)) return r;
    return {
      ...r,
      details: [
        ...r.details,
        `base image: ${base} is not built on this machine yet: the first deploy builds it (about a minute or two, once)`,
      ],
    };
  });
  return { ...report, services };
}

/**
 * `platform plan` (and `platform deploy --dry-run`): what the platform decided per service and
 * why, then a Pulumi preview of what a deploy would rebuild, replace or leave alone. Nothing
 * is built, started or linked.
 */
export async function runPlan(o: PlanOptions): Promise<void> {
  const edge = resolveEdgeSettings(edgeSettings(o, process.env), false);
  const { configFile, config } = await loadValidConfig(o.file);
  const projectDir = dirname(configFile);
  const env = checkEnvName(o.env ?? DEFAULT_ENV);
  const linked = o.project ? checkProjectName(o.project) : linkedProject(projectDir);
  const project = linked ?? config.name;
  const plan = buildPlan(config, stackPlanSettings({ project, env, projectDir }, edge), await scanSources(config, projectDir));
  const report = withFirstNeed(
    plan,
    buildPlanReport(plan, projectDir, readText, new Set(linked ? readSecretNames(project, env).keys() : [])),
    await unbuiltBaseImages(plan),
  );
  const missing = report.secrets.filter((s) => !s.set).map((s) => s.name);

  let preview: PreviewState = { kind: "skipped" };
  if (o.preview !== false) {
    if (missing.length) {
      preview = { kind: "blocked", reason: `secret${missing.length > 1 ? "s" : ""} ${missing.join(", ")} not set` };
      process.exitCode = ExitCode.failed;
    } else if (!linked) {
      preview = { kind: "not-deployed", reason: `no project is linked to this directory; a first deploy creates "${project}"` };
    } else {
      // Pulumi and the Docker client load only for a preview: without one, plan is as light as validate.
      const { previewPlan } = await import("./plan-preview.js");
      preview = await previewPlan(project, env, { configFile, ...edge });
      if (preview.kind === "failed") process.exitCode = ExitCode.failed;
    }
  }
  process.stdout.write(o.json ? renderPlanJson(report, preview) : renderPlanText(report, preview));
}
