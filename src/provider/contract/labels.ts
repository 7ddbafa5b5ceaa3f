/**
 * The labels the provider's resources carry and the rules read from them: what the targets
 * write, and what the runtime, the CLI and the provider's handlers look objects up by.
 */

/**
 * The label that names a public container's host label (`<project>-<service>-<w>-<w>`), so
 * every host in use on the engine is one `listContainers` away.
 */
export const PUBLIC_HOST_LABEL = "platform.public-host";
/** A public container claims each of its custom domains with one label: platform.domain.<domain>. */
export const DOMAIN_LABEL_PREFIX = "platform.domain.";
export const domainLabel = (domain: string): string => `${DOMAIN_LABEL_PREFIX}${domain}`;

/** The label a cron run's Job and pod carry on Kubernetes: `platform cron` lists runs by it (`/` is no label value). */
export const CRON_JOB_LABEL = "platform.cron-job";

/** The first label of a public host name: `<project>-<service>-<word>-<word>`. */
export function hostLabel(prefix: string, words: string): string {
  return `${prefix}-${words}`;
}

/**
 * Who a namespace belongs to, by its labels, when not to this stack: `project a (b)`, or
 * "something other than platform" for a namespace without the platform's labels.
 */
export function foreignOwner(labels: Record<string, string> | undefined, project: string, env: string): string | undefined {
  if (!labels || (labels["platform.project"] === project && labels["platform.env"] === env)) return undefined;
  return labels["platform.project"] ? `project ${labels["platform.project"]} (${labels["platform.env"]})` : "something other than platform";
}
