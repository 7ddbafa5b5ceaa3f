import { EDGE_ALIAS_SUFFIX_TEXT } from "./constants.js";

/**
 * All names of a stack, from its identity alone: stable across deploys, so nothing is
 * renamed (and replaced) by accident, and unique per project and environment on one engine.
 * Project, environment and service names are DNS labels, which never hold '_', so '_' joins
 * them without collisions: (shop, eu-prod) is shop_eu-prod, (shop-eu, prod) is shop-eu_prod.
 */
export const NAME_SEPARATOR = "_";

/** The cron scheduler of a stack with `cron:` jobs (Docker): its resource name and its row in a deploy's progress. */
export const CRON_SCHEDULER = "cron-scheduler";

export function stackPrefix(project: string, env: string): string {
  return `${project}${NAME_SEPARATOR}${env}`;
}

/** Names of a stack's objects: `<project>_<env>_<service>`, then a kind (`data`) when it has one. */
export function stackName(project: string, env: string, ...parts: string[]): string {
  return [stackPrefix(project, env), ...parts].join(NAME_SEPARATOR);
}

/** `<project>-<service>`: the public host is this, then the stack's two words. */
export function hostPrefix(project: string, service: string): string {
  return `${project}-${service}`;
}

export function publicHost(prefix: string, words: string, appsDomain: string): string {
  return `${prefix}-${words}.${appsDomain}`;
}

export function publicUrl(prefix: string, words: string, appsDomain: string, httpsPort: number): string {
  return `https://${publicHost(prefix, words, appsDomain)}${httpsPort === 443 ? "" : `:${httpsPort}`}`;
}

/** A custom domain's URL through the edge. */
export function domainUrl(domain: string, httpsPort: number): string {
  return `https://${domain}${httpsPort === 443 ? "" : `:${httpsPort}`}`;
}

/** The network alias the edge dials for a custom domain (provider/docker/edge-public-config.ts). */
export function domainAlias(domain: string): string {
  return `${domain}${EDGE_ALIAS_SUFFIX_TEXT}`;
}

/** The network alias the edge proxy dials for a public host label. */
export function edgeAlias(prefix: string, words: string): string {
  return `${prefix}-${words}${EDGE_ALIAS_SUFFIX_TEXT}`;
}

/** Images are shared by a project's environments (same inputs, same image), not by projects. */
export function imageRepository(project: string, service: string): string {
  return `platform/${project}${NAME_SEPARATOR}${service}`;
}

/** A stack's Kubernetes namespace: `<project>-<env>` (one DNS label, 63 characters at most). */
export function namespaceName(plan: { project: string; env: string }): string {
  const name = `${plan.project}-${plan.env}`;
  if (name.length > 63) throw new Error(`the Kubernetes namespace "${name}" (project-environment) is longer than 63 characters`);
  return name;
}
