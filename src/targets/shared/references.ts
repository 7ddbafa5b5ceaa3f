import * as pulumi from "@pulumi/pulumi";
import type { TemplatePart } from "../../config/index.js";
import { domainUrl, publicUrl } from "../../plan/naming.js";
import { TELEMETRY_REF } from "../../plan/otel-env.js";
import type { Plan, PlannedService } from "../../plan/types.js";

/** What `${service.property}` can resolve to, per service. */
export type ReferenceValues = ReadonlyMap<string, Readonly<Record<string, pulumi.Input<string>>>>;

/** One variable: its parts joined once every referenced value is known. */
export function resolveTemplate(parts: readonly TemplatePart[], values: ReferenceValues): pulumi.Output<string> {
  const pieces = parts.map((p) => {
    if (p.kind === "text") return p.text;
    const v = values.get(p.service)?.[p.property];
    // Config validation refuses unknown references; reaching this is a bug.
    if (v === undefined) throw new Error(`unresolvable reference \${${p.service}.${p.property}}`);
    return v;
  });
  return pulumi.all(pieces).apply((xs) => xs.join(""));
}

/** Services that export telemetry: every one whose variables point at the receiver. */
export function exportsTelemetry(s: Pick<PlannedService, "env">): boolean {
  return Object.values(s.env).some((parts) => parts.some((p) => p.kind === "ref" && p.service === TELEMETRY_REF));
}

/** A variable that needs the telemetry receiver, where the target runs none: left out. */
function lacksReceiver(parts: readonly TemplatePart[], values: ReferenceValues): boolean {
  return parts.some((p) => p.kind === "ref" && p.service === TELEMETRY_REF && values.get(TELEMETRY_REF)?.[p.property] === undefined);
}

/**
 * All variables of a service. Kept secret as a whole: values may carry credentials. Where the
 * target runs no telemetry receiver (a Kubernetes cluster whose nodes cannot get the receiver's
 * image: no registry), the SDK the image carries is switched off
 * (OTEL_SDK_DISABLED): it would otherwise export to localhost and log every failed batch.
 */
export function resolveEnv(
  env: Readonly<Record<string, readonly TemplatePart[]>>,
  values: ReferenceValues,
): pulumi.Output<Record<string, string>> {
  const kept = Object.entries(env).filter(([, parts]) => !lacksReceiver(parts, values));
  const entries = [
    ...kept.map(([k, parts]) => resolveTemplate(parts, values).apply((v) => [k, v] as const)),
    ...(kept.length < Object.keys(env).length && !("OTEL_SDK_DISABLED" in env)
      ? [pulumi.output(["OTEL_SDK_DISABLED", "true"] as const)]
      : []),
  ];
  return pulumi.secret(pulumi.all(entries).apply((kv) => Object.fromEntries(kv)));
}

/**
 * What `${service.property}` gives for one service: its url (a database's is its secret connection
 * string, with host, port, user, password and database too), and a public service's external_url.
 * @param host the name other services reach it by on the target (a network alias, a Service DNS name)
 * @param words the stack's URL words, when a service is public
 */
export function referenceValues(
  s: PlannedService,
  plan: Plan,
  host: string,
  words: pulumi.Output<string> | undefined,
  password: pulumi.Output<string> | undefined,
): Record<string, pulumi.Input<string>> {
  const values: Record<string, pulumi.Input<string>> = {};
  if (s.database && password) {
    const { user, database } = s.database;
    values.url = pulumi.secret(pulumi.interpolate`postgresql://${user}:${password}@${host}:${s.port}/${database}`);
    Object.assign(values, { host, port: String(s.port), user, password, database });
  } else if (s.redis?.passwordless) {
    Object.assign(values, { url: `redis://${host}:${s.port}/0`, host, port: String(s.port) });
  } else if (s.redis && password) {
    values.url = pulumi.secret(pulumi.interpolate`redis://:${password}@${host}:${s.port}/0`);
    Object.assign(values, { host, port: String(s.port), password });
  } else if (s.type !== "worker") {
    // A worker listens on nothing: it has no url (validation refuses ${worker.url}).
    values.url = `http://${host}:${s.port}`;
  }
  if (s.public && words) {
    const platformUrl = words.apply((w) => publicUrl(s.hostPrefix, w, plan.appsDomain, plan.httpsPort));
    // A custom domain is the address people use: the first one is the service's external URL.
    // The public edge and a cluster's front door serve custom domains: on the local edge the platform URL stays the one.
    const first = plan.publicEdge || plan.frontDoor ? s.domains[0] : undefined;
    values.external_url = first ? domainUrl(first, plan.httpsPort) : platformUrl;
    if (first) values.platform_url = platformUrl;
  }
  return values;
}
