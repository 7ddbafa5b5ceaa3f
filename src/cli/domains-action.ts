import { isTcpEngine } from "../docker-client.js";
import { servedCertificates } from "../engine/certificates.js";
import { requireCredentials } from "../engine/credentials.js";
import { checkDns } from "../engine/dns-check.js";
import { stackPublicFacts, urlPort } from "../engine/stack-ops.js";
import { inspectEdge } from "../runtime/docker.js";
import { resolveStack } from "./context.js";
import { printJson } from "./render.js";
import type { StackOptions } from "./stack-options.js";
import { formatTable } from "./table.js";

/**
 * `platform domains`: each custom domain with its DNS check (does it resolve to this server, or to
 * the cluster's front door?) and its certificate as the edge (or the front door) serves it now. A domain that points elsewhere gets the record to create.
 */
export async function runDomains(o: StackOptions): Promise<void> {
  const t = await resolveStack(o);
  const owned = Object.values(t.config.services).flatMap((s) => s.domains.map((domain) => ({ service: s.name, domain })));
  if (owned.length === 0) {
    if (o.json) printJson({ project: t.project, env: t.env, domains: [] });
    else
      process.stdout.write(
        `${t.project} (${t.env}): no custom domains; add domains: [shop.example.com] to a public service in platform.yml\n`,
      );
    return;
  }
  // On a cluster's front door the domains point at its address and its controller serves them.
  const creds = requireCredentials();
  const facts = await stackPublicFacts(t.project, t.env, creds);
  const door = facts.frontDoor;
  const edge = door ? undefined : await inspectEdge().catch(() => undefined);
  const port = door ? urlPort(Object.values(facts.urls)[0]) : edge?.running && !isTcpEngine() ? edge.httpsPort : undefined;
  // The DNS is always checked; a certificate is read only where it points here (servedCertificates).
  const served = port
    ? await servedCertificates(
        owned.map((d) => d.domain),
        { port, checkDns: true, ...(door ? { address: door } : {}) },
      )
    : undefined;
  const dns = served ? served.map((s) => s.dns!) : await checkDns(owned.map((d) => d.domain));
  const rows = owned.map(({ service, domain }, i) => {
    const cert = served?.[i]?.cert;
    // A certificate of the local CA is no certificate to a browser: only the public edge's (or a front door's) count.
    const trusted = cert && (door || edge?.mode === "public") && !cert.local ? { issuer: cert.issuer, expires: cert.expires } : undefined;
    return { service, domain, dns: dns[i]!, certificate: trusted };
  });
  if (o.json) {
    printJson({ project: t.project, env: t.env, edge: edge?.mode ?? null, frontDoor: door ?? null, domains: rows });
  } else {
    process.stdout.write(`${t.project} (${t.env})\n`);
    process.stdout.write(
      formatTable(
        ["DOMAIN", "SERVICE", "DNS", "CERTIFICATE"],
        rows.map((r) => [
          r.domain,
          r.service,
          r.dns.pointsHere
            ? "points here"
            : r.dns.addresses.length
              ? `points to ${r.dns.addresses.join(", ")}`
              : (r.dns.error ?? "no address"),
          r.certificate ? `${r.certificate.issuer}, expires ${r.certificate.expires.slice(0, 10)}` : "none yet",
        ]),
      ),
    );
    for (const r of rows.filter((x) => !x.dns.pointsHere))
      process.stdout.write(`hint: create the DNS record ${r.dns.record} for ${r.domain}\n`);
    if (edge?.mode !== "public")
      process.stdout.write("note: the edge is local; custom domains are served by the public edge (PLATFORM_EDGE=public on a deploy)\n");
  }
  if (rows.some((r) => !r.dns.pointsHere || !r.certificate)) process.exitCode = 1;
}
