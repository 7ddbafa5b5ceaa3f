import type * as pulumi from "@pulumi/pulumi";
import type { Plan, PlannedService } from "../../plan/types.js";
import type { EdgeInputs } from "../../provider/contract/docker-inputs.js";
import { domainLabel, PUBLIC_HOST_LABEL } from "../../provider/contract/labels.js";
import { domainAlias, edgeAlias } from "../../plan/naming.js";
import { hostLabel } from "../../provider/contract/labels.js";
import { EdgeAttachment, type Network, Words } from "./resources.js";

/** How public services are reached: the stack's URL words, and the edge joined to its network. */
export interface PublicRoutes {
  readonly words: Words;
  readonly edge: EdgeAttachment;
}

/** The stack's URL words, when any service is public: the same whichever way its traffic comes in. */
export function createUrlWords(plan: Plan): Words | undefined {
  const hostPrefixes = plan.services.filter((s) => s.public).map((s) => s.hostPrefix);
  if (hostPrefixes.length === 0) return undefined;
  // seedName is `<project>-<env>` spelled out, not plan.network: a change of naming scheme must not draw new URL words.
  return new Words("url-words", { seedName: `${plan.project}-${plan.env}`, hostPrefixes });
}

/** The stack's public routes, when any service is public; both targets route through the edge. */
export function createPublicRoutes(plan: Plan, network: Network | undefined): PublicRoutes | undefined {
  const words = network ? createUrlWords(plan) : undefined;
  if (!network || !words) return undefined;
  const edge = new EdgeAttachment(
    "edge",
    { network: plan.network, image: plan.images.caddy, httpsPort: plan.httpsPort, appsDomain: plan.appsDomain, ...publicInputs(plan) },
    {
      dependsOn: [network],
    },
  );
  return { words, edge };
}

/** The public edge's inputs; none for the local edge, whose inputs stay as they always were. */
function publicInputs(plan: Plan): Partial<EdgeInputs> {
  const p = plan.publicEdge;
  if (!p) return {};
  return {
    mode: "public",
    httpPort: p.httpPort,
    acmeCa: p.acme.ca,
    acmeEmail: p.acme.email,
    ...(p.acme.caRoot ? { acmeCaRoot: p.acme.caRoot } : {}),
  };
}

/**
 * A public container's labels name its host label and its custom domains, so hosts and domains
 * in use are one listContainers away (provider/docker/public-host.ts): two stacks never claim one.
 */
export function publicHostLabels(
  labels: Record<string, string>,
  s: PlannedService,
  words: pulumi.Output<string>,
): pulumi.Output<Record<string, string>> {
  const domains = Object.fromEntries(s.domains.map((d) => [domainLabel(d), "claimed"]));
  return words.apply((w): Record<string, string> => ({ ...labels, [PUBLIC_HOST_LABEL]: hostLabel(s.hostPrefix, w), ...domains }));
}

/** The aliases the edge dials for a public service: its host label's, and one per custom domain. */
export function edgeAliases(s: PlannedService, words: pulumi.Output<string>): pulumi.Output<string[]> {
  return words.apply((w) => [edgeAlias(s.hostPrefix, w), ...s.domains.map(domainAlias)]);
}
