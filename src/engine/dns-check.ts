import { Resolver } from "node:dns/promises";
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";
import { remoteEngineAddress } from "../docker-ssh.js";

/** Where a public host name points, and whether that is this server. */
export interface DnsCheck {
  readonly host: string;
  /** The addresses it resolves to (A and AAAA). */
  readonly addresses: string[];
  readonly pointsHere: boolean;
  /** When it does not: the DNS record to create. */
  readonly record?: string;
  readonly error?: string;
}

/**
 * The server's public addresses: PLATFORM_PUBLIC_ADDRESS (comma-separated: behind NAT, or a
 * load balancer's); else, for an engine reached over SSH, the address its host name is (or
 * resolves to); else every non-loopback address of this machine's interfaces.
 */
export async function serverAddresses(env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const given = env.PLATFORM_PUBLIC_ADDRESS?.split(",")
    .map((a) => a.trim())
    .filter(Boolean);
  if (given?.length) return given;
  const remote = remoteEngineAddress(env);
  if (remote) {
    const host = new URL(remote).hostname.replace(/^\[|\]$/g, "");
    return isIP(host) ? [host] : (await lookup(resolver(env), host)).addresses;
  }
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).filter((i) => !i.internal).map((i) => i.address));
}

/** A resolver of the system's servers, or of PLATFORM_DNS_SERVERS (comma-separated `ip[:port]`) to ask a particular one. */
function resolver(env: NodeJS.ProcessEnv): Resolver {
  const r = new Resolver({ timeout: 3000, tries: 2 });
  const servers = env.PLATFORM_DNS_SERVERS?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (servers?.length) r.setServers(servers);
  return r;
}

async function lookup(r: Resolver, host: string): Promise<{ addresses: string[]; error?: string }> {
  const [v4, v6] = await Promise.allSettled([r.resolve4(host), r.resolve6(host)]);
  const addresses = [...(v4.status === "fulfilled" ? v4.value : []), ...(v6.status === "fulfilled" ? v6.value : [])];
  if (addresses.length) return { addresses };
  const reason = v4.status === "rejected" ? (v4.reason as NodeJS.ErrnoException).code : undefined;
  return {
    addresses,
    error: reason === "ENOTFOUND" || reason === "ENODATA" ? "no A or AAAA record" : `the lookup failed (${reason ?? "no answer"})`,
  };
}

/** The addresses a front door's address stands for: itself when an IP, else what its name resolves to (a load balancer's). */
export async function addressesOf(nameOrIp: string, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  return isIP(nameOrIp) ? [nameOrIp] : (await lookup(resolver(env), nameOrIp)).addresses;
}

/**
 * Whether each host resolves to this server (or to `target`, a cluster's front door); the
 * record to create for one that does not.
 */
export async function checkDns(
  hosts: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  target?: readonly string[],
): Promise<DnsCheck[]> {
  const here = target ? [...target] : await serverAddresses(env);
  const r = resolver(env);
  const ipv4 = here.find((a) => a.includes(".")) ?? here[0] ?? "<this server's public address>";
  return Promise.all(
    [...new Set(hosts)].map(async (host) => {
      const { addresses, error } = await lookup(r, host);
      const pointsHere = addresses.some((a) => here.includes(a));
      return {
        host,
        addresses,
        pointsHere,
        ...(pointsHere ? {} : { record: `${host}. A ${ipv4}` }),
        ...(error ? { error } : {}),
      };
    }),
  );
}
