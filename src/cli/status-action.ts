import { requireCredentials } from "../engine/credentials.js";
import { listRecords } from "../engine/history.js";
import { stackPublicFacts, stackRuntime, urlPort } from "../engine/stack-ops.js";
import { isTcpEngine } from "../docker-client.js";
import { type ServedCertificate, servedCertificates } from "../engine/certificates.js";
import { describeEdge, type EdgeState, inspectEdge } from "../runtime/docker.js";
import { postgresVersion } from "../runtime/pg-exec.js";
import type { Copy, TargetRuntime } from "../runtime/target-runtime.js";
import { resolveStack } from "./context.js";
import { printJson } from "./render.js";
import { formatTable } from "./table.js";
import type { StackOptions } from "./stack-options.js";

/**
 * Each public URL's certificate as it is served now (its expiry: renewal is automatic): by a
 * cluster's front door at its address, or by this machine's edge.
 */
async function certificatesOf(edge: EdgeState | undefined, urls: readonly string[], frontDoor?: string): Promise<ServedCertificate[]> {
  const hosts = urls.map((u) => new URL(u).hostname);
  const served = frontDoor
    ? await servedCertificates(hosts, { port: urlPort(urls[0]), checkDns: true, address: frontDoor })
    : edge?.running && edge.httpsPort && !isTcpEngine()
      ? await servedCertificates(hosts, { port: edge.httpsPort, checkDns: edge.mode === "public" })
      : [];
  return served.map(({ dns: _dns, ...c }) => c);
}

/**
 * A service of `replicas` copies: running when all run, degraded when some do (the others are
 * named after the table), down when none does.
 */
function replicaState(want: number, replicas: readonly Copy[] | undefined): { state: string; status: string } | undefined {
  if (want <= 1 || !replicas) return undefined;
  const up = replicas.filter((r) => r.state === "running").length;
  return { state: up >= want ? "running" : up > 0 ? "degraded" : "down", status: `${up}/${want} replicas running` };
}

/** The PostgreSQL version a database runs now, read in its container or pod (undefined when it cannot be read). */
async function databaseVersion(runtime: TargetRuntime, service: string): Promise<string | undefined> {
  const host = await runtime.databaseHost(service).catch(() => undefined);
  return host ? postgresVersion(host).catch(() => undefined) : undefined;
}

/** `platform status`: what runs per service, its health, URL and image, and the last deployment. */
export async function runStatus(o: StackOptions): Promise<void> {
  const t = await resolveStack(o);
  const creds = requireCredentials();
  const runtime = await stackRuntime(t, creds);
  const [live, { urls, frontDoor }] = await Promise.all([
    runtime.services(),
    stackPublicFacts(t.project, t.env, creds, Object.keys(t.config.services)),
  ]);
  const last = listRecords(t.project, t.env)[0];
  const rows = Object.entries(t.config.services).map(([name, svc]) => {
    const state = live.get(name);
    const copies = state?.copies;
    // Each copy of a replicated service; on Kubernetes also of one that the autoscaler scaled.
    const replicas = copies && ((svc.replicas ?? 1) > 1 || copies.length > 1) ? copies : undefined;
    return {
      service: name,
      state: state ? (state.running ? "running" : "down") : "not deployed",
      status: state?.detail ?? "",
      // On Kubernetes the workload's own count stays the status (`Deployment ready 2/3`).
      ...(runtime.words.countsCopies ? replicaState(svc.replicas ?? 1, replicas) : {}),
      url: urls[name] ?? "",
      image: state?.image ?? "",
      ...(replicas ? { replicas } : {}),
    };
  });
  // The PostgreSQL version each running database runs (`version:` in platform.yml chooses the major).
  const versions = Object.fromEntries(
    await Promise.all(
      Object.entries(t.config.services)
        .filter(([n, s]) => s.type === "postgres" && live.get(n)?.running)
        .map(async ([n]) => [n, await databaseVersion(runtime, n)] as const),
    ),
  );
  const edge = await inspectEdge().catch(() => undefined);
  const certificates = Object.keys(urls).length ? await certificatesOf(edge, Object.values(urls), frontDoor) : [];
  const unenforced = runtime.words.unenforcedStorage;
  const notes = unenforced
    ? Object.entries(t.config.services)
        .filter(([, s]) => s.resources.storageWritten)
        .map(([n, s]) => unenforced(n, String(s.resources.storage)))
    : [];
  if (o.json) {
    printJson({
      project: t.project,
      env: t.env,
      services: rows.map((r) => (versions[r.service] ? { ...r, postgresVersion: versions[r.service] } : r)),
      notes,
      edge: edge ?? null,
      certificates,
      lastDeployment: last ? { id: last.id, outcome: last.outcome, startedAt: last.startedAt } : null,
    });
    return;
  }
  process.stdout.write(`${t.project} (${t.env})\n`);
  process.stdout.write(
    formatTable(
      ["SERVICE", "STATE", "STATUS", "URL", "IMAGE"],
      rows.map((r) => [r.service, r.state, r.status, r.url, r.image]),
    ),
  );
  for (const r of rows)
    for (const [i, c] of (r.replicas ?? []).entries())
      process.stdout.write(`replica: ${r.service} ${i + 1}/${r.replicas?.length} ${c.container} ${c.state} (${c.status})\n`);
  for (const [n, v] of Object.entries(versions)) if (v) process.stdout.write(`postgres: ${n} runs PostgreSQL ${v}\n`);
  for (const n of notes) process.stdout.write(`note: ${n}\n`);
  process.stdout.write(last ? `last deployment: ${last.id} ${last.outcome} at ${last.startedAt}\n` : "no deployment yet\n");
  if (edge) process.stdout.write(`edge: ${describeEdge(edge)}\n`);
  for (const c of certificates)
    process.stdout.write(
      `certificate: ${c.host} ${c.cert ? `from ${c.cert.issuer}, expires ${c.cert.expires.slice(0, 16).replace("T", " ")} UTC` : "none served"}\n`,
    );
  if (rows.some((r) => r.state !== "running")) process.exitCode = 1;
}
