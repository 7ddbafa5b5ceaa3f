import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Stack } from "@pulumi/pulumi/automation/index.js";
import writeFileAtomic from "write-file-atomic";
import { isMap, parseDocument } from "yaml";
import { baseImages } from "../home/images.js";
import { homePaths } from "../home/layout.js";
import { buildPlanSettings, type EdgeSettings, parseStackSettings, type StackSettings } from "../plan/settings.js";
import type { PlanContext } from "../plan/types.js";

/**
 * The stack's settings file, stacks/Pulumi.<env>.yaml in the application's workspace: the
 * file `pulumi config` reads and edits. The platform writes its own plain keys (platform:*)
 * here directly, which spares each deploy two CLI calls (`pulumi config` and `config
 * set-all`, 0.3 to 0.6 s); every other entry (secrets, the encryption salt) stays as it is.
 */
export function stackSettingsFile(project: string, env: string): string {
  return join(homePaths.workspaceDir(project), "stacks", `Pulumi.${env}.yaml`);
}

function load(file: string) {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const doc = parseDocument(text);
  // Only a file the engine made (it holds the passphrase's salt) is edited; else the CLI does it.
  if (doc.errors.length || !isMap(doc.contents) || typeof doc.get("encryptionsalt") !== "string") return undefined;
  const config = doc.get("config");
  if (config !== undefined && !isMap(config)) return undefined;
  return doc;
}

/** One entry of the settings file: a plain string, a secret's ciphertext, or other YAML as JSON text (structured). */
export interface StackConfigValue {
  readonly value: string;
  readonly secret: boolean;
  readonly structured?: true;
}

/** Every entry of the settings file (secrets as their ciphertext, never decrypted), or undefined when it cannot be used. */
export function readStackConfig(file: string): Record<string, StackConfigValue> | undefined {
  const doc = load(file);
  if (!doc) return undefined;
  const config = doc.get("config");
  const values: Record<string, StackConfigValue> = {};
  if (isMap(config)) {
    for (const item of config.items) {
      const v = (item.value as { toJSON?: () => unknown } | null)?.toJSON?.() ?? item.value;
      const key = String((item.key as { value?: unknown }).value ?? item.key);
      const secure = (v as { secure?: unknown } | null)?.secure;
      if (typeof v === "string") values[key] = { value: v, secret: false };
      else if (typeof secure === "string") values[key] = { value: secure, secret: true };
      else values[key] = { value: JSON.stringify(v), secret: false, structured: true };
    }
  }
  return values;
}

/** The plain (not secret) string values of the settings file, or undefined when it cannot be used. */
export function readStackSettings(file: string): Record<string, string> | undefined {
  const config = readStackConfig(file);
  if (!config) return undefined;
  const values: Record<string, string> = {};
  for (const [k, v] of Object.entries(config)) if (!v.secret && !v.structured) values[k] = v.value;
  return values;
}

/** Sets plain string values; false (nothing written) when the file cannot be used. */
export function writeStackSettings(file: string, values: Record<string, string>): boolean {
  const doc = load(file);
  if (!doc) return false;
  for (const [k, v] of Object.entries(values)) doc.setIn(["config", k], v);
  writeFileAtomic.sync(file, doc.toString()); // keeps the file's mode
  return true;
}

/** The stack's plain settings: from its settings file, else through the CLI. */
export async function currentStackSettings(stack: Stack, project: string, env: string): Promise<Record<string, string>> {
  return (
    readStackSettings(stackSettingsFile(project, env)) ??
    Object.fromEntries(Object.entries(await stack.getAllConfig()).map(([k, v]) => [k, v.value]))
  );
}

/** The settings a stack keeps (what its last deploy was given), for plans made outside the program. */
export function keptSettings(project: string, env: string): StackSettings {
  return parseStackSettings(readStackSettings(stackSettingsFile(project, env)) ?? {});
}

/** The edge settings a stack keeps (its domain, port, public edge and front door). */
export function keptEdgeSettings(project: string, env: string): EdgeSettings {
  const { target: _t, kubeconfig: _k, registry: _r, ...edge } = keptSettings(project, env);
  return edge;
}

/**
 * The plan's settings as the program will see them: the given settings over what the stack keeps,
 * then the defaults. `plan` and `deploy` plan outside the program with this, so they agree with it.
 */
export function stackPlanSettings(stack: { project: string; env: string; projectDir: string }, given: EdgeSettings): PlanContext {
  return buildPlanSettings(stack, baseImages(), given, keptSettings(stack.project, stack.env));
}
