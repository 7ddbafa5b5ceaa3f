import { EDGE_ALIAS_SUFFIX_TEXT } from "./constants.js";

/**
 * All names of a stack, from its identity alone: stable across deploys, so nothing is
 * renamed (and replaced) by accident, and unique per project and environment on one engine.
 */
export function stackPrefix(project: string, env: string): string {
  return `${project}-${env}`;
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

/** The network alias the edge proxy dials for a public host label. */
export function edgeAlias(prefix: string, words: string): string {
  return `${prefix}-${words}${EDGE_ALIAS_SUFFIX_TEXT}`;
}

export function imageRepository(project: string, service: string): string {
  return `platform/${project}-${service}`;
}
