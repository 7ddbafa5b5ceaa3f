import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ComponentSpec } from "./component-spec.js";
import { type ClusterLayout, type ClusterToolchain, FRONT_DOOR } from "./layout.js";

/**
 * The test cluster's front door: Traefik, a widely used ingress controller, as a host process
 * of the cluster (no image, no LoadBalancer implementation needed). It serves the cluster's
 * Ingresses on 127.0.0.1:10080 and :10443 (this machine's edge holds 127.0.0.1:443), reaches
 * pods by their addresses (the host owns the pod bridge), and writes 127.0.0.1 into each
 * Ingress's status, which is what Pulumi waits for.
 */

/** An ACME CA for the front door's certificates (`platform cluster up --acme-ca ...`). */
export interface FrontDoorAcme {
  /** The directory URL. */
  readonly ca: string;
  /** A PEM file that signs the directory's HTTPS, when the system's CAs do not. */
  readonly caRoot?: string;
  readonly email: string;
}

export const TRAEFIK_RESOLVER = "platform";

/** What `up` says of the front door: its URLs, and the ACME directory its certificates come from (null: Traefik's default certificate). */
export interface FrontDoorInfo {
  http: string;
  https: string;
  acmeCa: string | null;
}

export function toFrontDoorInfo(acme: FrontDoorAcme | undefined): FrontDoorInfo {
  const { address, httpPort, httpsPort } = FRONT_DOOR;
  return { http: `http://${address}:${httpPort}`, https: `https://${address}:${httpsPort}`, acmeCa: acme?.ca ?? null };
}

const acmeFile = (l: ClusterLayout) => join(l.dir, "front-door-acme.json");

/** Traefik's own files (its ACME storage): `up` makes it, since Traefik creates the file but not its directory. */
export const traefikDir = (l: ClusterLayout) => join(l.dir, "traefik");

/**
 * The front door's ACME CA as `up` was last given it, so a later `up` keeps it: undefined keeps
 * the saved one, null forgets it (`--acme-off`), a CA replaces it.
 */
export function frontDoorAcme(l: ClusterLayout, given: FrontDoorAcme | null | undefined): FrontDoorAcme | undefined {
  if (given === null) {
    rmSync(acmeFile(l), { force: true });
    return undefined;
  }
  if (given) {
    writeFileSync(acmeFile(l), JSON.stringify(given), { mode: 0o600 });
    return given;
  }
  try {
    const saved = JSON.parse(readFileSync(acmeFile(l), "utf8")) as FrontDoorAcme;
    return typeof saved.ca === "string" && typeof saved.email === "string" ? saved : undefined;
  } catch {
    return undefined;
  }
}

/** Where Traefik keeps an ACME account and its certificates: one file per CA, so another CA never serves a stale certificate. */
function acmeStorage(l: ClusterLayout, acme: FrontDoorAcme): string {
  let root = "";
  try {
    root = acme.caRoot ? readFileSync(acme.caRoot, "utf8") : "";
  } catch {
    /* a missing root fails Traefik's first order, with its own words */
  }
  const key = createHash("sha256").update(`${acme.ca}\n${acme.email}\n${root}`).digest("hex").slice(0, 12);
  return join(traefikDir(l), `acme-${key}.json`);
}

/**
 * Traefik's flags: its Kubernetes Ingress provider for the class `traefik`, entry points on
 * loopback, /ping for health. With an ACME CA, every router on websecure gets its certificate
 * from it (HTTP-01 on the web entry point, which otherwise redirects to HTTPS); without one,
 * websecure serves Traefik's default certificate.
 */
export function traefikArgs(l: ClusterLayout, acme?: FrontDoorAcme): string[] {
  const at = (port: number) => `${FRONT_DOOR.address}:${port}`;
  const flags: Record<string, string> = {
    "--global.checknewversion": "false",
    "--global.sendanonymoususage": "false",
    "--log.level": "INFO",
    "--log.nocolor": "true",
    "--entrypoints.web.address": at(FRONT_DOOR.httpPort),
    "--entrypoints.websecure.address": at(FRONT_DOOR.httpsPort),
    "--entrypoints.websecure.http.tls": "true",
    "--entrypoints.traefik.address": at(FRONT_DOOR.pingPort),
    "--ping": "true",
    "--providers.kubernetesingress": "true",
    "--providers.kubernetesingress.ingressendpoint.ip": FRONT_DOOR.address,
  };
  if (acme) {
    const r = `--certificatesresolvers.${TRAEFIK_RESOLVER}.acme`;
    Object.assign(flags, {
      [`${r}.caserver`]: acme.ca,
      [`${r}.email`]: acme.email,
      [`${r}.storage`]: acmeStorage(l, acme),
      [`${r}.httpchallenge.entrypoint`]: "web",
      ...(acme.caRoot ? { [`${r}.cacertificates`]: acme.caRoot } : {}),
      "--entrypoints.websecure.http.tls.certresolver": TRAEFIK_RESOLVER,
      "--entrypoints.web.http.redirections.entrypoint.to": "websecure",
      "--entrypoints.web.http.redirections.entrypoint.scheme": "https",
    });
  }
  return Object.entries(flags).map(([k, v]) => `${k}=${v}`);
}

export function traefikSpec(l: ClusterLayout, tc: ClusterToolchain, acme?: FrontDoorAcme): ComponentSpec {
  return {
    name: "traefik",
    command: tc.traefik,
    args: traefikArgs(l, acme),
    // Traefik reads its cluster from KUBECONFIG only (no flag for it).
    env: { KUBECONFIG: join(l.kubeconfigs, "traefik.yaml") },
    health: { kind: "http", url: `http://${FRONT_DOOR.address}:${FRONT_DOOR.pingPort}/ping` },
    stopGraceMs: 5000,
  };
}

/** Traefik's rights (what its Ingress provider watches, and Ingress status), and the IngressClass it serves, the cluster's default. */
export function buildFrontDoorManifests(): string {
  return `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: platform:traefik
rules:
  - apiGroups: [""]
    resources: [services, secrets, nodes]
    verbs: [get, list, watch]
  - apiGroups: [discovery.k8s.io]
    resources: [endpointslices]
    verbs: [get, list, watch]
  - apiGroups: [networking.k8s.io]
    resources: [ingresses, ingressclasses]
    verbs: [get, list, watch]
  - apiGroups: [networking.k8s.io]
    resources: [ingresses/status]
    verbs: [update]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: platform:traefik
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: platform:traefik
subjects:
  - apiGroup: rbac.authorization.k8s.io
    kind: User
    name: platform:traefik
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: ${FRONT_DOOR.ingressClass}
  annotations:
    ingressclass.kubernetes.io/is-default-class: "true"
spec:
  controller: traefik.io/ingress-controller
`;
}
