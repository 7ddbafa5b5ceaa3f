import { FRONT_DOOR_OUTPUT } from "../plan/constants.js";

/** What a deploy reads from the stack's outputs: the public URLs and host names, the front door. */
type Outputs = Record<string, { value: unknown; secret: boolean }>;

/** Public URLs from stack outputs (`<service>_external_url`), in the given service order. */
export function publicUrls(outputs: Outputs, order: readonly string[] = []): Record<string, string> {
  const urls: Record<string, string> = {};
  const rank = (s: string) => (order.includes(s) ? order.indexOf(s) : order.length);
  const names = Object.keys(outputs)
    .filter((k) => k.endsWith("_external_url"))
    .map((k) => k.slice(0, -"_external_url".length));
  for (const s of names.sort((a, b) => rank(a) - rank(b))) {
    const v = outputs[`${s}_external_url`]?.value;
    if (typeof v === "string") urls[s] = v;
  }
  return urls;
}

/** The public host names of a stack's outputs (`_external_url`, `_platform_url`). */
export function publicHosts(outputs: Outputs): string[] {
  const urls = Object.entries(outputs)
    .filter(([k]) => k.endsWith("_external_url") || k.endsWith("_platform_url"))
    .map(([, v]) => v.value);
  return [...new Set(urls.filter((u): u is string => typeof u === "string").map((u) => new URL(u).hostname))];
}

/** Kubernetes with a front door: the address its ingress controller serves at (`frontDoor`), else nothing. */
export function frontDoorOf(outputs: Outputs): { frontDoor?: string } {
  const door = outputs[FRONT_DOOR_OUTPUT]?.value;
  return typeof door === "string" && door ? { frontDoor: door } : {};
}
