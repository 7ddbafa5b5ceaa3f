import type { ConfigView } from "./model.js";
import { NAME_PATTERN } from "./schema.js";
import type { DiagnosticSink } from "./sink.js";

const NAME_RE = new RegExp(NAME_PATTERN);
const MAX_LABEL = 63;
/** "-<word>-<word>" plus the '-' between project and service: generated words are at most 8 characters. */
export const HOST_OVERHEAD = 19;
/** The longest project name that still leaves room for a one-letter service. */
export const MAX_PROJECT_NAME = MAX_LABEL - HOST_OVERHEAD - 1;

/** A DNS label close to what was written: "My_API" -> "my-api". */
export function suggestName(name: string): string {
  const s = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^[^a-z]+/, "")
    .slice(0, MAX_LABEL)
    .replace(/-+$/, "");
  return s === "" ? "app" : s;
}

/** What is wrong with a name that must be a DNS label, or undefined. */
export function labelProblem(name: string): string | undefined {
  if (name === "") return "is empty";
  if (name.length > MAX_LABEL) return `is ${name.length} characters; at most ${MAX_LABEL}`;
  if (NAME_RE.test(name)) return undefined;
  if (/[A-Z]/.test(name)) return "has uppercase letters";
  if (!/^[a-z]/.test(name)) return "must start with a letter";
  if (name.endsWith("-")) return "must not end with '-'";
  return "may only contain lowercase letters, digits and '-'";
}

/** `${secrets.NAME}`: the environment's secrets (platform secrets set), not a service. */
export const SECRETS_REF = "secrets";

export const NAME_RULE = "lowercase letters, digits and '-', starting with a letter, not ending with '-'";

/**
 * Project and service names become DNS names (<project>-<service>-<word>-<word>.<domain>),
 * so they must be DNS labels and, together, fit the 63-character label limit.
 */
export function validateNames(view: ConfigView, sink: DiagnosticSink): void {
  const project = view.name;
  let projectOk = false;
  if (project !== undefined) {
    const problem = labelProblem(project);
    if (problem) {
      sink.error({
        path: ["name"],
        code: "invalid-name",
        message: `project name "${project}" ${problem}`,
        hint: `use ${NAME_RULE}, e.g. "${suggestName(project).slice(0, MAX_PROJECT_NAME).replace(/-+$/, "")}"`,
      });
    } else if (project.length > MAX_PROJECT_NAME) {
      sink.error({
        path: ["name"],
        code: "name-too-long",
        message: `project name is ${project.length} characters; at most ${MAX_PROJECT_NAME}`,
        hint: `public host names are <project>-<service>-<word>-<word> and must fit in ${MAX_LABEL} characters; shorten it, e.g. "${project.slice(0, MAX_PROJECT_NAME).replace(/-+$/, "")}"`,
      });
    } else projectOk = true;
  }
  for (const svc of view.services) {
    const path = ["services", svc.name];
    const problem = labelProblem(svc.name);
    if (problem) {
      sink.error({
        path,
        code: "invalid-name",
        message: `service name "${svc.name}" ${problem}`,
        hint: `use ${NAME_RULE}, e.g. "${suggestName(svc.name)}"`,
        at: "key",
      });
      continue;
    }
    if (svc.name === SECRETS_REF) {
      sink.error({
        path,
        code: "reserved-name",
        message: `"${SECRETS_REF}" is reserved: \${${SECRETS_REF}.NAME} refers to the environment's secrets`,
        hint: "rename the service, e.g. secrets-api",
        at: "key",
      });
      continue;
    }
    // postgres is never public, so only services that may get a public host are limited.
    if (!projectOk || svc.type === "postgres" || svc.type === "redis" || svc.type === "worker" || project === undefined) continue;
    const length = project.length + svc.name.length + HOST_OVERHEAD;
    if (length > MAX_LABEL) {
      const room = MAX_LABEL - HOST_OVERHEAD - project.length;
      sink.error({
        path,
        code: "name-too-long",
        message: `public host name "${project}-${svc.name}-<word>-<word>" can be ${length} characters; at most ${MAX_LABEL}`,
        hint: `shorten the service name to at most ${room} characters (or the project name); generated words take up to 8 characters each`,
        at: "key",
      });
    }
  }
}
