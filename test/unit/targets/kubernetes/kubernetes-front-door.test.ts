import { describe, expect, it } from "vitest";
import { chooseIngressClass, chooseIssuer } from "../../../../src/runtime/kube-deploy.js";
import { buildPlanSettings, parseFrontDoor, serializeFrontDoor } from "../../../../src/plan/settings.js";
import type { Plan } from "../../../../src/plan/types.js";
import { ingressAnnotations, ingressHosts, ingressSpec, tlsSecretName } from "../../../../src/targets/kubernetes/front-door.js";
import { fullstackPlan } from "../../../fixtures/plans.js";

const plan: Plan = await fullstackPlan();
const web = { ...plan.services.find((s) => s.name === "web")!, domains: ["shop.example.com", "www.example.com"] };

describe("the cluster's front door: an Ingress per public service", () => {
  it("one rule per host to the service's Service and port; TLS per host, without a Secret when the controller brings certificates", () => {
    const hosts = ingressHosts(web, "brave-otter", "apps.example.com");
    expect(hosts).toEqual([`${web.hostPrefix}-brave-otter.apps.example.com`, "shop.example.com", "www.example.com"]);
    const spec = ingressSpec(web, hosts, { kind: "ingress", className: "traefik" });
    expect(spec.ingressClassName).toBe("traefik");
    expect(spec.rules).toEqual(
      hosts.map((host) => ({
        host,
        http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "web", port: { number: web.port } } } }] },
      })),
    );
    expect(spec.tls).toEqual(hosts.map((h) => ({ hosts: [h] })));
    expect(ingressAnnotations({ kind: "ingress" })).toEqual({});
  });

  it("with a cert-manager ClusterIssuer: its annotation, and one Secret per host so a failing domain never blocks another", () => {
    const door = { kind: "ingress", clusterIssuer: "letsencrypt" } as const;
    const spec = ingressSpec(web, ["a.example.com", "b.example.com"], door);
    expect(spec.ingressClassName).toBeUndefined();
    expect(spec.tls).toEqual([
      { hosts: ["a.example.com"], secretName: "web-tls" },
      { hosts: ["b.example.com"], secretName: "web-d1-tls" },
    ]);
    expect(tlsSecretName(web, 2)).toBe("web-d2-tls");
    expect(ingressAnnotations(door)).toEqual({ "cert-manager.io/cluster-issuer": "letsencrypt" });
  });

  it("the setting survives the stack's config; a value this version cannot read is the edge", () => {
    const door = { kind: "ingress", className: "nginx", clusterIssuer: "le" } as const;
    expect(parseFrontDoor(serializeFrontDoor(door))).toEqual(door);
    expect(parseFrontDoor(serializeFrontDoor(null))).toBeNull();
    expect(parseFrontDoor(undefined)).toBeUndefined();
    expect(parseFrontDoor('{"kind":"gateway"}')).toBeNull();
    expect(parseFrontDoor("{not json")).toBeNull();
    expect(parseFrontDoor('{"kind":"ingress","className":3}')).toBeNull();
  });

  it("flags win over the stack's kept front door; null (the edge) wins too", () => {
    const stack = { project: "p", env: "e", projectDir: "/x" };
    const kept = { frontDoor: { kind: "ingress" } as const };
    expect(buildPlanSettings(stack, plan.images, {}, kept).frontDoor).toEqual({ kind: "ingress" });
    expect(buildPlanSettings(stack, plan.images, { frontDoor: null }, kept).frontDoor).toBeUndefined();
  });
});

describe("choosing the front door from what the cluster offers", () => {
  const named = (value?: string) => ({ ...(value ? { value } : {}), source: "--ingress-class" });
  it("the class named, else the default, else the only one; none: undefined", () => {
    const classes = [
      { name: "nginx", isDefault: false },
      { name: "traefik", isDefault: true },
    ];
    expect(chooseIngressClass(classes, named("nginx"))).toBe("nginx");
    expect(chooseIngressClass(classes, named())).toBe("traefik");
    expect(chooseIngressClass([{ name: "nginx", isDefault: false }], named())).toBe("nginx");
    expect(chooseIngressClass([], named())).toBeUndefined();
  });

  it("refuses a class the cluster lacks, and several classes without a default, saying what to do", () => {
    const two = [
      { name: "a", isDefault: false },
      { name: "b", isDefault: false },
    ];
    expect(() => chooseIngressClass(two, named("c"))).toThrow(/--ingress-class: the cluster has no IngressClass "c" \(it has a, b\)/);
    expect(() => chooseIngressClass(two, named())).toThrow(/several IngressClasses \(a, b\) and no single default/);
  });

  it("a ClusterIssuer: the named one (which must exist), else the only one; several: a note and none", () => {
    const notes: string[] = [];
    const src = (value?: string) => ({ ...(value ? { value } : {}), source: "PLATFORM_CLUSTER_ISSUER" });
    expect(chooseIssuer(["le"], src(), notes)).toBe("le");
    expect(chooseIssuer([], src(), notes)).toBeUndefined();
    expect(chooseIssuer(["a", "b"], src("b"), notes)).toBe("b");
    expect(() => chooseIssuer(["a"], src("z"), notes)).toThrow(
      /PLATFORM_CLUSTER_ISSUER: the cluster has no cert-manager ClusterIssuer "z"/,
    );
    expect(notes).toEqual([]);
    expect(chooseIssuer(["a", "b"], src(), notes)).toBeUndefined();
    expect(notes[0]).toMatch(/several cert-manager ClusterIssuers \(a, b\)/);
  });
});
