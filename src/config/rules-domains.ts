import type { ConfigView } from "./model.js";
import { DOMAIN_PATTERN } from "./schema.js";
import type { DiagnosticSink } from "./sink.js";

const DOMAIN_RE = new RegExp(DOMAIN_PATTERN);

/** What is wrong with a custom domain, or undefined. */
function domainProblem(d: string): string | undefined {
  if (DOMAIN_RE.test(d)) return undefined;
  if (/^[a-z]+:\/\//i.test(d) || d.includes("/")) return "is a URL; give the host name alone";
  if (/[A-Z]/.test(d)) return "has uppercase letters";
  if (d.endsWith(".")) return "ends with a dot";
  if (d.startsWith("*.")) return "is a wildcard; list each name (a certificate is obtained per name)";
  if (!d.includes(".")) return "is a single label; a domain has at least two (shop.example.com)";
  return "is not a DNS name (lowercase letters, digits and '-' in labels separated by dots)";
}

/** A name close to what was written: "HTTPS://Shop.Example.com/" -> "shop.example.com". */
function suggestDomain(d: string): string {
  return d
    .toLowerCase()
    .replace(/^[a-z]+:\/\//, "")
    .replace(/\/.*$/, "")
    .replace(/\.$/, "")
    .replace(/^\*\./, "");
}

/**
 * Custom domains: DNS names, only on public services (the edge serves only those), and each
 * claimed once (two services would compete for one host's traffic and certificate).
 */
export function validateDomains(view: ConfigView, sink: DiagnosticSink): void {
  const owner = new Map<string, string>();
  for (const svc of view.services) {
    const domains = svc.raw.domains;
    if (!Array.isArray(domains) || domains.length === 0) continue;
    const base = ["services", svc.name, "domains"];
    if (svc.raw.public !== true) {
      sink.error({
        path: base,
        code: "domains-not-public",
        message: "custom domains are served by the public edge, and this service is not public",
        hint:
          svc.type === "postgres" || svc.type === "redis"
            ? "remove domains: a database is never public"
            : "add public: true to the service, or remove domains",
        at: "key",
      });
    }
    domains.forEach((d, i) => {
      if (typeof d !== "string") return;
      const problem = domainProblem(d);
      if (problem) {
        sink.error({
          path: [...base, i],
          code: "domain-name",
          message: `domain "${d}" ${problem}`,
          hint: `write it as ${suggestDomain(d) || "shop.example.com"}`,
        });
        return;
      }
      const first = owner.get(d);
      if (first !== undefined) {
        const same = first === svc.name;
        sink.error({
          path: [...base, i],
          code: "domain-twice",
          message: same ? `domain "${d}" is listed twice` : `domain "${d}" is also a domain of service "${first}"`,
          hint: same ? "remove the second one" : "a domain routes to one service: keep it on one of them",
        });
        return;
      }
      owner.set(d, svc.name);
    });
  }
}
