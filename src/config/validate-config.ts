import { isRecord, toConfigView } from "./model.js";
import { nodeConfigFs } from "./node-fs.js";
import { toConfig } from "./normalize.js";
import { parseYamlText } from "./parse-yaml.js";
import { validateDomains } from "./rules-domains.js";
import { validateNames } from "./rules-names.js";
import { validatePaths } from "./rules-paths.js";
import { collectReferences, validateReferences } from "./rules-references.js";
import { validateScale } from "./rules-scale.js";
import { validateEnvNames, validateServiceKinds } from "./rules-services.js";
import { validateBackups } from "./rules-backup.js";
import { validateRedisAuth } from "./rules-redis.js";
import { validateHealthKinds } from "./rules-health.js";
import { validateCron } from "./rules-cron.js";
import { validateGraph } from "./rules-graph.js";
import { validateNotify } from "./rules-notify.js";
import { configSchema } from "./schema.js";
import { reportShapeIssues } from "./shape-issues.js";
import { DiagnosticSink, sortDiagnostics } from "./sink.js";
import type { ValidateOptions, ValidationResult } from "./types.js";

/** Far beyond one machine's worth of services; keeps the graph rules' cost bounded on hostile files. */
export const MAX_SERVICES = 1000;

/**
 * The pure core: platform.yml text -> every problem in it, or the normalized Config. It does
 * not throw for any input; the only I/O is the injectable path checks (opts.fs).
 */
export function validateConfig(text: string, opts: ValidateOptions): ValidationResult {
  const parsed = parseYamlText(text);
  const sink = new DiagnosticSink(opts.file, parsed.locator);
  for (const p of parsed.problems) sink.error(p);
  if (!parsed.value) return toResult(sink);

  const raw = parsed.value;
  const shape = configSchema.safeParse(raw);
  if (!shape.success) reportShapeIssues(shape.error.issues, raw, sink);

  // Cross-field rules run even when the shape is wrong somewhere, so one run shows everything.
  const view = toConfigView(raw);
  if (isRecord(raw.services) && view.services.length === 0) {
    sink.error({
      path: ["services"],
      code: "no-services",
      message: "no services: declare at least one",
      hint: "e.g.\n  services:\n    api:\n      type: fastapi\n      source: ./api",
      at: "key",
    });
  }
  if (view.services.length > MAX_SERVICES) {
    sink.error({
      path: ["services"],
      code: "too-many-services",
      message: `${view.services.length} services; one platform.yml may declare at most ${MAX_SERVICES}`,
      hint: "split the application into several projects",
      at: "key",
    });
    return toResult(sink);
  }
  validateNames(view, sink);
  validateServiceKinds(view, sink);
  validateScale(view, sink);
  validateBackups(view, sink);
  validateRedisAuth(view, sink);
  validateHealthKinds(view, sink);
  validateCron(view, sink);
  validateEnvNames(view, sink);
  validateDomains(view, sink);
  const found = collectReferences(view);
  validateReferences(view, found, sink, opts.secrets);
  validateGraph(view, found, sink);
  validatePaths(view, sink, opts.projectDir, opts.fs ?? nodeConfigFs);
  validateNotify(raw, sink, opts.secrets);

  const result = toResult(sink);
  if (result.ok && shape.success) result.config = toConfig(shape.data, parsed.locator);
  return result;
}

function toResult(sink: DiagnosticSink): ValidationResult {
  sink.finish();
  return { ok: sink.errors.length === 0, errors: sortDiagnostics(sink.errors), warnings: sortDiagnostics(sink.warnings) };
}
