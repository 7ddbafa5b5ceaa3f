/**
 * Who owns an engine object, read from its labels, and the pure decisions built on that:
 * adopt an existing network or volume only when it is this stack's, never another stack's
 * (its data, its traffic) and never one a user made by hand.
 */
export type Labels = Readonly<Record<string, string>> | undefined;

export { DOMAIN_LABEL_PREFIX, domainLabel, PUBLIC_HOST_LABEL } from "../contract/labels.js";

/** Which of a service's volumes this is, when it has more than its data (plan/wal-archive.ts's VOLUME_ROLE_LABEL). */
const VOLUME_ROLE = "platform.volume";

export const STACK_KEYS = ["platform.project", "platform.env"] as const;
export const SERVICE_KEYS = ["platform.project", "platform.env", "platform.service"] as const;

/** True when every key is set in `wanted` and `actual` has the same value. */
export function sameOwner(actual: Labels, wanted: Labels, keys: readonly string[]): boolean {
  return keys.every((k) => wanted?.[k] !== undefined && actual?.[k] === wanted[k]);
}

/** "project shop, env preview, service db", or what to say when the platform did not make it. */
export function describeOwner(labels: Labels, keys: readonly string[]): string {
  const parts = keys.filter((k) => labels?.[k] !== undefined).map((k) => `${k.replace(/^platform\./, "")} ${labels?.[k]}`);
  return parts.length ? parts.join(", ") : "no platform labels (not made by the platform)";
}

/** Docker `label` filters that select exactly these owner labels. */
export function ownerFilters(wanted: Labels, keys: readonly string[]): string[] {
  return keys.filter((k) => wanted?.[k] !== undefined).map((k) => `${k}=${wanted?.[k]}`);
}

export interface NamedObject {
  readonly Name: string;
  readonly Labels?: Labels | null;
}

export type AdoptDecision =
  | { readonly kind: "create" }
  | { readonly kind: "adopt"; readonly name: string }
  | { readonly kind: "refuse"; readonly message: string };

/** A network of the wanted name is adopted only when it is this stack's (a re-created stack after a lost state). */
export function decideNetwork(name: string, existing: NamedObject | undefined, wanted: Labels): AdoptDecision {
  if (!existing) return { kind: "create" };
  if (sameOwner(existing.Labels ?? undefined, wanted, STACK_KEYS)) return { kind: "adopt", name };
  return {
    kind: "refuse",
    message:
      `network "${name}" already exists and is not this stack's (it has ${describeOwner(existing.Labels ?? undefined, STACK_KEYS)}; ` +
      `this stack is ${describeOwner(wanted, STACK_KEYS)}): joining it would mix two applications' traffic. ` +
      `Remove it if nothing uses it (docker network rm ${name}), or deploy under another project name or environment.`,
  };
}

/**
 * The wanted name first: this service's volume is adopted (a retained database after a
 * destroy), anything else is refused. With no volume of that name, a volume whose labels name
 * exactly this stack and service is adopted whatever its name, so its data survives a change
 * of naming scheme; two such volumes are ambiguous and refused rather than guessed.
 */
export function decideVolume(
  name: string,
  byName: NamedObject | undefined,
  labelled: readonly NamedObject[],
  wanted: Labels,
): AdoptDecision {
  const owner = describeOwner(wanted, SERVICE_KEYS);
  if (byName) {
    if (sameOwner(byName.Labels ?? undefined, wanted, SERVICE_KEYS)) return { kind: "adopt", name };
    const theirs = byName.Labels ?? undefined;
    const anotherStack = theirs?.["platform.project"] !== undefined;
    return {
      kind: "refuse",
      message:
        `volume "${name}" already exists and is not this database's (it has ${describeOwner(theirs, SERVICE_KEYS)}; this database is ${owner}): ` +
        `its data is left alone. ${anotherStack ? "Deploy under another project name or environment, or remove that stack's data if it is no longer needed" : "If its data is not needed, remove it"} ` +
        `(docker volume rm ${name}); to use its data, copy it into this database after a first deploy.`,
    };
  }
  // A database has two volumes with its service's labels, its data and its WAL archive: the role tells them apart.
  const mine = labelled.filter(
    (v) => sameOwner(v.Labels ?? undefined, wanted, SERVICE_KEYS) && v.Labels?.[VOLUME_ROLE] === wanted?.[VOLUME_ROLE],
  );
  if (mine.length === 0) return { kind: "create" };
  if (mine.length === 1) return { kind: "adopt", name: (mine[0] as NamedObject).Name };
  const names = mine.map((v) => v.Name).sort();
  return {
    kind: "refuse",
    message:
      `several volumes hold data of this database (${owner}): ${names.join(", ")}, and none is named "${name}": ` +
      `the platform will not guess which one to use. Remove the ones not needed (docker volume rm NAME), then deploy again.`,
  };
}
