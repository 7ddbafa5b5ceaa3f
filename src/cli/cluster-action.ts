import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { clusterDown, clusterUp } from "../test-cluster/cluster.js";
import { clusterStatus } from "../test-cluster/status.js";
import type { FrontDoorAcme } from "../test-cluster/front-door.js";
import { MAX_NODES } from "../test-cluster/nodes.js";
import { usage } from "./edge-flags.js";
import { printJson } from "./render.js";
import { formatTable } from "./table.js";

/** Progress goes to stderr, so `--json` keeps stdout to one object. */
const progress = (line: string) => process.stderr.write(`  ${line}\n`);

export interface UpFlags {
  json?: boolean;
  acmeCa?: string;
  acmeCaRoot?: string;
  acmeEmail?: string;
  acmeOff?: boolean;
  nodes?: string;
}

/** `--nodes N`: 1 to MAX_NODES; unset keeps the count given last. */
export function nodesFlag(o: UpFlags): number | undefined {
  if (o.nodes === undefined) return undefined;
  const n = Number(o.nodes);
  if (!/^\d+$/.test(o.nodes) || n < 1 || n > MAX_NODES)
    throw usage(
      `--nodes: "${o.nodes}" is not a node count from 1 to ${MAX_NODES}`,
      "give --nodes 2 for a second node (--nodes 1 removes it)",
    );
  return n;
}

/** The front door's ACME CA from the flags: unset keeps the saved one, null forgets it. */
export function acmeFlags(o: UpFlags): FrontDoorAcme | null | undefined {
  if (o.acmeOff) {
    if (o.acmeCa) throw usage("--acme-off and --acme-ca contradict each other", "give one of them");
    return null;
  }
  if (o.acmeCa === undefined) {
    if (o.acmeCaRoot || o.acmeEmail)
      throw usage("--acme-ca-root and --acme-email go with --acme-ca", "give the ACME directory with --acme-ca URL");
    return undefined;
  }
  if (!/^https:\/\/\S+$/.test(o.acmeCa)) throw usage(`--acme-ca: "${o.acmeCa}" is not an https:// URL`, "give the ACME directory's URL");
  if (!o.acmeEmail || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(o.acmeEmail))
    throw usage(
      `--acme-email ${o.acmeEmail ? `"${o.acmeEmail}" is not an e-mail address` : "is missing"}`,
      "give the address the CA writes to",
    );
  let caRoot: string | undefined;
  if (o.acmeCaRoot) {
    caRoot = resolve(o.acmeCaRoot);
    let pem = "";
    try {
      pem = readFileSync(caRoot, "utf8");
    } catch (e) {
      throw usage(`--acme-ca-root: cannot read ${caRoot} (${(e as NodeJS.ErrnoException).code ?? "error"})`, "give a PEM file");
    }
    if (!pem.includes("-----BEGIN CERTIFICATE-----")) throw usage(`--acme-ca-root: ${caRoot} holds no PEM certificate`, "give a PEM file");
  }
  return { ca: o.acmeCa, email: o.acmeEmail, ...(caRoot ? { caRoot } : {}) };
}

export async function runUp(o: UpFlags): Promise<void> {
  const acme = acmeFlags(o);
  const nodes = nodesFlag(o);
  const r = await clusterUp({ progress, ...(acme !== undefined ? { acme } : {}), ...(nodes !== undefined ? { nodes } : {}) });
  if (o.json) return printJson(r);
  process.stdout.write(
    r.alreadyRunning
      ? `✓ the test cluster is already running (checked in ${r.seconds.toFixed(1)}s)\n`
      : `✓ the test cluster is up in ${r.seconds.toFixed(1)}s\n`,
  );
  process.stdout.write(`nodes: ${r.nodes.join(", ")}\n`);
  process.stdout.write(`kubeconfig: ${r.kubeconfig}\n  export KUBECONFIG=${r.kubeconfig}\n`);
  const certs = r.frontDoor.acmeCa ? `certificates from ${r.frontDoor.acmeCa}` : "Traefik's default certificate";
  process.stdout.write(`front door (Traefik, IngressClass traefik): ${r.frontDoor.http}  ${r.frontDoor.https} (${certs})\n`);
}

export async function runDown(o: { json?: boolean; purge?: boolean }): Promise<void> {
  const r = await clusterDown({ purge: o.purge, progress });
  if (o.json) return printJson(r);
  process.stdout.write(r.stopped.length ? `✓ stopped ${r.stopped.join(", ")}\n` : "✓ the test cluster was not running\n");
  if (r.purged) process.stdout.write("✓ removed its state, certificates and images\n");
}

export async function runStatus(o: { json?: boolean }): Promise<void> {
  const s = await clusterStatus();
  if (!s.ready) process.exitCode = 1;
  if (o.json) return printJson(s);
  if (!s.toolchain) {
    process.stdout.write(
      "the test cluster's toolchain is not installed: platform cluster up builds it (or npm run setup -- --kubernetes)\n",
    );
    return;
  }
  process.stdout.write(
    formatTable(
      ["COMPONENT", "PID", "STATE"],
      s.components.map((c) => [
        c.name,
        c.pid ? String(c.pid) : "",
        c.healthy ? "healthy" : c.running ? "running, not answering" : "stopped",
      ]),
    ),
  );
  const nodes = s.nodes.length
    ? s.nodes
        .map(
          (n) =>
            `${n.name}: ${n.ready ? "Ready" : n.registered ? "NotReady" : "not registered"}${n.internalIp ? ` (${n.internalIp})` : ""}`,
        )
        .join(", ")
    : "unknown (API server down)";
  process.stdout.write(
    `node${s.nodes.length > 1 ? "s" : ""}: ${nodes}\ndns: ${s.dns ? (s.dns.ready ? "CoreDNS ready" : "CoreDNS not ready") : "unknown"}\nkubeconfig: ${s.kubeconfig}\n`,
  );
  process.stdout.write(s.ready ? "✓ ready\n" : "✖ not ready (platform cluster up starts what is missing)\n");
}
