import type * as pulumi from "@pulumi/pulumi";
import type { Plan, PlannedService } from "../../plan/types.js";
import { TLS_DEFAULTS } from "../../provider/contract/tls.js";
import { CertificateAuthority, ServerCertificate } from "./resources.js";

/**
 * The TLS of a stack's databases, whatever the target: one CA per stack (20 years, renewed by
 * a deploy in its last year) and per database a server certificate (825 days, renewed by a
 * deploy in its last 90) naming the hosts its clients dial. Both live in the stack's encrypted
 * state; the keys only ever leave it into the database's container (Docker) or a Secret
 * mounted into its pod (Kubernetes).
 */
export interface DatabaseTls {
  /** The CA certificate (public): what the services that reference a database trust. */
  readonly caCertPem: pulumi.Output<string>;
  /** Per database service name. */
  readonly servers: ReadonlyMap<string, ServerCertificate>;
}

/** Names every server certificate carries besides the target's: psql in the container, a tunnel to 127.0.0.1. */
export const LOOPBACK_HOSTS = ["localhost", "127.0.0.1"];

/** Undefined for a stack without a database. `hostsOf` gives the names clients reach a database by on the target. */
export function createDatabaseTls(plan: Plan, hostsOf: (s: PlannedService) => readonly string[]): DatabaseTls | undefined {
  const databases = plan.services.filter((s) => s.database);
  if (databases.length === 0) return undefined;
  const ca = new CertificateAuthority("database-ca", {
    commonName: `platform ${plan.project}/${plan.env} databases`,
    validityDays: TLS_DEFAULTS.caValidityDays,
    renewBeforeDays: TLS_DEFAULTS.caRenewBeforeDays,
  });
  const servers = new Map<string, ServerCertificate>();
  for (const s of databases) {
    servers.set(
      s.name,
      new ServerCertificate(`${s.name}-tls`, {
        caCertPem: ca.certPem,
        caKeyPem: ca.keyPem,
        hosts: [...new Set([...hostsOf(s), ...LOOPBACK_HOSTS])],
        validityDays: TLS_DEFAULTS.serverValidityDays,
        renewBeforeDays: TLS_DEFAULTS.serverRenewBeforeDays,
      }),
    );
  }
  return { caCertPem: ca.certPem, servers };
}
