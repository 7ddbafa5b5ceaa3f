/**
 * The config stage: platform.yml text -> a typed, normalized Config, or every problem with
 * its position. Imports nothing beyond zod, yaml and node builtins, so `platform validate`
 * stays fast.
 */
export type {
  Config,
  ConfigFs,
  Diagnostic,
  NotifyChannel,
  OnFailure,
  PresetName,
  ResourcesConfig,
  Retention,
  ServiceConfig,
  ServiceType,
  TemplatePart,
  ValidateOptions,
  ValidationResult,
} from "./types.js";
export { validateConfig } from "./validate-config.js";
export { loadConfig, type LoadResult } from "./load-config.js";
export { parseTemplate, scanTemplate } from "./template.js";
export { PRESETS, parseDuration, parseStorage } from "./units.js";
export { formatDiagnostic, renderCodeFrame, toJsonDiagnostic } from "./format.js";
export { POSTGRES_PROPERTIES, referencedSecrets, SECRET_NAME_RE, SERVICE_PROPERTIES } from "./rules-references.js";
export { SECRETS_REF } from "./rules-names.js";
export { DEFAULT_POSTGRES_VERSION, POSTGRES_VERSIONS } from "./postgres-schema.js";
export { configSchema, serviceSchema, SERVICE_TYPES } from "./schema.js";
export { DEFAULT_SAMPLE_RATIO } from "./telemetry-schema.js";
export { nodeConfigFs } from "./node-fs.js";
export { NOTIFY_EVENTS, type NotifyEvent, notifyChannelsOf } from "./notify-schema.js";
export { SECRET_REF } from "./rules-notify.js";
