import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { usageError } from "../errors.js";
import { DEFAULT_APPS_DOMAIN, DEFAULT_HTTPS_PORT, LETS_ENCRYPT_DIRECTORY } from "../plan/constants.js";
import type { EdgeSettings } from "../plan/settings.js";
import type { PublicEdge } from "../plan/types.js";
import { checkAppsDomain, checkHttpsPort } from "./flags.js";

/** The edge flags of deploy and plan; each has a PLATFORM_* variable for non-interactive runs. */
export interface EdgeFlags {
  appsDomain?: string;
  httpsPort?: string;
  edge?: string;
}

/** A usage error (exit 2) with its hint: how the flag checks of deploy, plan and cluster up say what to fix. */
export const usage = usageError;

/** A flag's value, else its variable's, with the name to quote in a message. */
export function pick(
  flag: string | undefined,
  flagName: string,
  env: NodeJS.ProcessEnv,
  variable: string,
): { value?: string; source: string } {
  return flag !== undefined ? { value: flag, source: flagName } : { value: env[variable] || undefined, source: variable };
}

/** PLATFORM_ACME_CA_ROOT: a PEM file that signs the ACME directory's TLS, read now (the edge gets its text). */
function readCaRoot(path: string): string {
  let pem: string;
  try {
    pem = readFileSync(resolve(path), "utf8");
  } catch (e) {
    throw usage(
      `PLATFORM_ACME_CA_ROOT: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      "give the path of a PEM file with the CA certificate that signs the ACME directory's HTTPS",
    );
  }
  if (!pem.includes("-----BEGIN CERTIFICATE-----"))
    throw usage(`PLATFORM_ACME_CA_ROOT: ${path} holds no PEM certificate`, "give a file that starts with -----BEGIN CERTIFICATE-----");
  return pem;
}

/**
 * The public edge as PLATFORM_* variables describe it. Public mode serves a real DNS name, so it
 * needs an apps domain other than localhost and an account e-mail for the ACME CA.
 */
function publicEdgeSettings(appsDomain: string | undefined, env: NodeJS.ProcessEnv): PublicEdge {
  if (!appsDomain || appsDomain === "localhost" || appsDomain.endsWith(".localhost")) {
    throw usage(
      "public edge: an apps domain that is a real DNS name is needed",
      "set PLATFORM_APPS_DOMAIN (or --apps-domain) to a domain whose wildcard record points at this server, e.g. apps.example.com (docs/guide/deploying-to-a-server.md)",
    );
  }
  const email = env.PLATFORM_ACME_EMAIL;
  if (!email || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) {
    throw usage(
      `public edge: PLATFORM_ACME_EMAIL ${email ? `"${email}" is not an e-mail address` : "is not set"}`,
      "set PLATFORM_ACME_EMAIL to the address the certificate authority writes to about your certificates",
    );
  }
  const ca = env.PLATFORM_ACME_CA || LETS_ENCRYPT_DIRECTORY;
  if (!/^https:\/\/[^\s]+$/.test(ca))
    throw usage(
      `PLATFORM_ACME_CA: "${ca}" is not an https:// URL`,
      "give the ACME directory URL, e.g. https://acme-staging-v02.api.letsencrypt.org/directory",
    );
  const httpPort = env.PLATFORM_HTTP_PORT ? checkHttpsPort(env.PLATFORM_HTTP_PORT, "PLATFORM_HTTP_PORT") : 80;
  const caRoot = env.PLATFORM_ACME_CA_ROOT ? readCaRoot(env.PLATFORM_ACME_CA_ROOT) : undefined;
  return { httpPort, acme: { ca, email, ...(caRoot ? { caRoot } : {}) } };
}

/**
 * --edge / --apps-domain / --https-port, else PLATFORM_EDGE, PLATFORM_APPS_DOMAIN, PLATFORM_HTTPS_PORT
 * (and, for the public edge, PLATFORM_HTTP_PORT and PLATFORM_ACME_*), checked like names in
 * platform.yml. `publicEdge` is set only when a mode was chosen: null for local.
 */
export function edgeSettings(o: EdgeFlags, env: NodeJS.ProcessEnv): EdgeSettings {
  const domain = pick(o.appsDomain, "--apps-domain", env, "PLATFORM_APPS_DOMAIN");
  const port = pick(o.httpsPort, "--https-port", env, "PLATFORM_HTTPS_PORT");
  const mode = pick(o.edge, "--edge", env, "PLATFORM_EDGE");
  if (mode.value !== undefined && mode.value !== "local" && mode.value !== "public") {
    throw usage(
      `${mode.source}: "${mode.value}" is not an edge mode`,
      "use local (127.0.0.1 with the platform's own CA, the default) or public (every interface, certificates from ACME)",
    );
  }
  const checked = domain.value === undefined ? undefined : checkAppsDomain(domain.value, domain.source);
  // A mode chosen now is the whole edge: what it does not say is the default, not what a stack kept.
  const appsDomain = checked ?? (mode.value === "local" ? DEFAULT_APPS_DOMAIN : undefined);
  const httpsPort = port.value !== undefined ? checkHttpsPort(port.value, port.source) : mode.value ? DEFAULT_HTTPS_PORT : undefined;
  return {
    ...(appsDomain !== undefined ? { appsDomain } : {}),
    ...(httpsPort !== undefined ? { httpsPort } : {}),
    ...(mode.value === "public" ? { publicEdge: publicEdgeSettings(appsDomain, env) } : mode.value === "local" ? { publicEdge: null } : {}),
  };
}
