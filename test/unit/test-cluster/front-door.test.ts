import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { acmeFlags } from "../../../src/cli/cluster-action.js";
import { buildFrontDoorManifests, frontDoorAcme, traefikArgs, traefikSpec } from "../../../src/test-cluster/front-door.js";
import { type ClusterToolchain, clusterLayout, FRONT_DOOR } from "../../../src/test-cluster/layout.js";

const home = mkdtempSync(join(tmpdir(), "front-door-"));
const l = clusterLayout(home);
const flag = (args: string[], name: string) => args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);

describe("the test cluster's front door (Traefik)", () => {
  it("serves Ingresses on loopback ports of its own, writes 127.0.0.1 into their status, and reads its cluster from KUBECONFIG", () => {
    const spec = traefikSpec(l, { traefik: "/tc/traefik" } as ClusterToolchain);
    expect(spec.command).toBe("/tc/traefik");
    expect(spec.env).toEqual({ KUBECONFIG: join(l.kubeconfigs, "traefik.yaml") });
    expect(spec.health).toEqual({ kind: "http", url: "http://127.0.0.1:10880/ping" });
    expect(flag(spec.args, "--entrypoints.web.address")).toBe(`127.0.0.1:${FRONT_DOOR.httpPort}`);
    expect(flag(spec.args, "--entrypoints.websecure.address")).toBe(`127.0.0.1:${FRONT_DOOR.httpsPort}`);
    expect(flag(spec.args, "--providers.kubernetesingress.ingressendpoint.ip")).toBe("127.0.0.1");
    // Without a CA: no resolver, and no redirect away from plain HTTP.
    expect(spec.args.some((a) => a.includes("certresolver") || a.includes("redirections"))).toBe(false);
  });

  it("with an ACME CA: every HTTPS router gets its certificate from it, HTTP-01 on web, which otherwise redirects; one account file per CA", () => {
    const acme = { ca: "https://10.250.0.1:14000/dir", caRoot: "/x/ca.pem", email: "ops@apps.test" };
    const args = traefikArgs(l, acme);
    expect(flag(args, "--certificatesresolvers.platform.acme.caserver")).toBe(acme.ca);
    expect(flag(args, "--certificatesresolvers.platform.acme.cacertificates")).toBe("/x/ca.pem");
    expect(flag(args, "--certificatesresolvers.platform.acme.httpchallenge.entrypoint")).toBe("web");
    expect(flag(args, "--entrypoints.websecure.http.tls.certresolver")).toBe("platform");
    expect(flag(args, "--entrypoints.web.http.redirections.entrypoint.to")).toBe("websecure");
    const storage = flag(args, "--certificatesresolvers.platform.acme.storage");
    expect(storage).toMatch(new RegExp(`^${join(l.dir, "traefik")}/acme-[0-9a-f]{12}\\.json$`));
    expect(flag(traefikArgs(l, { ...acme, ca: "https://other/dir" }), "--certificatesresolvers.platform.acme.storage")).not.toBe(storage);
  });

  it("its rights are read-only but for Ingress status, and its IngressClass is the cluster's default", () => {
    const docs = parseAllDocuments(buildFrontDoorManifests()).map((d) => d.toJS());
    const role = docs.find((d) => d.kind === "ClusterRole");
    const verbs = role.rules.flatMap((r: { verbs: string[] }) => r.verbs);
    expect(new Set(verbs)).toEqual(new Set(["get", "list", "watch", "update"]));
    expect(role.rules.find((r: { verbs: string[] }) => r.verbs.includes("update")).resources).toEqual(["ingresses/status"]);
    expect(docs.find((d) => d.kind === "ClusterRoleBinding").subjects).toEqual([
      { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "platform:traefik" },
    ]);
    const cls = docs.find((d) => d.kind === "IngressClass");
    expect(cls.metadata).toMatchObject({ name: "traefik", annotations: { "ingressclass.kubernetes.io/is-default-class": "true" } });
  });

  it("the ACME CA given to up is kept for later ups until --acme-off", () => {
    const mine = clusterLayout(mkdtempSync(join(tmpdir(), "front-door-home-")));
    mkdirSync(mine.dir, { recursive: true });
    expect(frontDoorAcme(mine, undefined)).toBeUndefined();
    const acme = { ca: "https://ca/dir", email: "a@b.cd" };
    expect(frontDoorAcme(mine, acme)).toEqual(acme);
    expect(frontDoorAcme(mine, undefined)).toEqual(acme);
    expect(frontDoorAcme(mine, null)).toBeUndefined();
    expect(frontDoorAcme(mine, undefined)).toBeUndefined();
  });

  it("cluster up's ACME flags are checked, saying what to give", () => {
    expect(acmeFlags({})).toBeUndefined();
    expect(acmeFlags({ acmeOff: true })).toBeNull();
    expect(() => acmeFlags({ acmeOff: true, acmeCa: "https://x/dir" })).toThrow(/contradict/);
    expect(() => acmeFlags({ acmeEmail: "a@b.cd" })).toThrow(/go with --acme-ca/);
    expect(() => acmeFlags({ acmeCa: "http://x/dir", acmeEmail: "a@b.cd" })).toThrow(/is not an https:\/\/ URL/);
    expect(() => acmeFlags({ acmeCa: "https://x/dir" })).toThrow(/--acme-email is missing/);
    const pem = join(home, "root.pem");
    writeFileSync(pem, "not a certificate");
    expect(() => acmeFlags({ acmeCa: "https://x/dir", acmeEmail: "a@b.cd", acmeCaRoot: pem })).toThrow(/holds no PEM certificate/);
    writeFileSync(pem, "-----BEGIN CERTIFICATE-----\nMII\n-----END CERTIFICATE-----\n");
    expect(acmeFlags({ acmeCa: "https://x/dir", acmeEmail: "a@b.cd", acmeCaRoot: pem })).toEqual({
      ca: "https://x/dir",
      email: "a@b.cd",
      caRoot: pem,
    });
  });
});
