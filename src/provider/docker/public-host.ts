import { docker, unlessGone } from "../../docker-client.js";
import { EDGE_ALIAS_SUFFIX_TEXT } from "../../plan/constants.js";
import { DOMAIN_LABEL_PREFIX, describeOwner, type Labels, PUBLIC_HOST_LABEL, sameOwner, STACK_KEYS } from "./ownership.js";

/**
 * Host labels in use on this engine: the label of public containers, and the edge aliases of
 * service containers made before that label existed (a container list carries no aliases, so
 * those few are inspected).
 */
export async function hostsInUse(): Promise<Set<string>> {
  const list = await docker().listContainers({ all: true, filters: { label: ["platform.service"] } });
  const hosts = new Set<string>();
  for (const c of list) {
    const label = c.Labels?.[PUBLIC_HOST_LABEL];
    if (label) {
      hosts.add(label);
      continue;
    }
    if (c.Labels?.["platform.job"]) continue;
    const info = await unlessGone(() => docker().getContainer(c.Id).inspect());
    for (const n of Object.values(info?.NetworkSettings.Networks ?? {})) {
      for (const a of n.Aliases ?? []) if (a.endsWith(EDGE_ALIAS_SUFFIX_TEXT)) hosts.add(a.slice(0, -EDGE_ALIAS_SUFFIX_TEXT.length));
    }
  }
  return hosts;
}

/**
 * The safety net behind the word pick: a public container never starts with a host label
 * that a container of another stack carries (a public service added later to an old stack).
 */
export async function refuseTakenHost(labels: Labels): Promise<void> {
  await refuseTakenDomains(labels);
  const host = labels?.[PUBLIC_HOST_LABEL];
  if (!host) return;
  const holders = await docker().listContainers({ all: true, filters: { label: [`${PUBLIC_HOST_LABEL}=${host}`] } });
  const other = holders.find((c) => !sameOwner(c.Labels, labels, STACK_KEYS));
  if (other) {
    throw new Error(
      `public host "${host}" is already used by container ${other.Names[0]?.replace(/^\//, "")} (${describeOwner(other.Labels, STACK_KEYS)}): ` +
        "two applications would share one URL. Rename the service, or destroy this stack and deploy it again to draw new URL words.",
    );
  }
}

/**
 * Two stacks never claim one custom domain: the second is refused with the first's name, before
 * its container starts (the edge would otherwise send the domain's traffic to either).
 */
async function refuseTakenDomains(labels: Labels): Promise<void> {
  const claimed = Object.keys(labels ?? {}).filter((k) => k.startsWith(DOMAIN_LABEL_PREFIX));
  for (const label of claimed) {
    const holders = await docker().listContainers({ all: true, filters: { label: [label] } });
    const other = holders.find((c) => !sameOwner(c.Labels, labels, STACK_KEYS));
    if (other) {
      const domain = label.slice(DOMAIN_LABEL_PREFIX.length);
      throw new Error(
        `domain "${domain}" is already claimed by ${describeOwner(other.Labels, STACK_KEYS)} (service ${other.Labels["platform.service"] ?? "?"}, container ${other.Names[0]?.replace(/^\//, "")}): ` +
          "one domain routes to one service. Remove it from that stack's platform.yml (and deploy it), or from this one.",
      );
    }
  }
}
