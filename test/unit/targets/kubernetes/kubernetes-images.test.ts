import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../fixtures/temp-home.js";
import { targetSettings } from "../../../../src/cli/stack-flags.js";
import { checkImageRoute } from "../../../../src/targets/kubernetes/images.js";
import { dockerConfigFor } from "../../../../src/targets/kubernetes/registry-auth.js";
import { pushedDigest, registryTarget } from "../../../../src/provider/kubernetes/registry-image.js";
import { appContainer, dependencyWait, deploymentSpec, migrateJobSpec } from "../../../../src/targets/kubernetes/specs.js";
import { fullstackPlan } from "../../../fixtures/plans.js";
import { plain } from "./plain.js";

const plan = await fullstackPlan();
const api = plan.services.find((s) => s.name === "api")!;

describe("images for a cluster of one's own: --registry", () => {
  it("a registry is HOST[:PORT][/PATH], without a scheme; a bad one says how to write it", () => {
    expect(targetSettings({ registry: "registry.example.com/team" }, {})).toEqual({ registry: "registry.example.com/team" });
    expect(targetSettings({}, { PLATFORM_REGISTRY: "127.0.0.1:5001" })).toEqual({ registry: "127.0.0.1:5001" });
    expect(() => targetSettings({ registry: "https://registry.example.com" }, {})).toThrow(
      /--registry: "https:\/\/registry.example.com" is not a registry/,
    );
    expect(() => targetSettings({}, { PLATFORM_REGISTRY: "Registry.example.com/Team" })).toThrow(/PLATFORM_REGISTRY/);
  });

  it("an image is pushed under the registry with its own name and tag; a registry host in its name is dropped", () => {
    expect(registryTarget("127.0.0.1:5001", "platform/shop_api:3f2a")).toEqual({
      repository: "127.0.0.1:5001/platform/shop_api",
      tag: "3f2a",
    });
    expect(registryTarget("reg.example.com/team", "platform-local/postgres:17")).toEqual({
      repository: "reg.example.com/team/platform-local/postgres",
      tag: "17",
    });
    expect(registryTarget("reg.example.com", "ghcr.io/acme/worker")).toEqual({ repository: "reg.example.com/acme/worker", tag: "latest" });
    expect(registryTarget("reg.example.com", "localhost:5000/x:1")).toEqual({ repository: "reg.example.com/x", tag: "1" });
  });

  it("pods run what was pushed by its digest, read from docker push's output", () => {
    const digest = `sha256:${"ab".repeat(32)}`;
    expect(
      pushedDigest(
        `The push refers to repository [127.0.0.1:5001/platform/shop_api]\n5f70bf18a086: Pushed\n3f2a: digest: ${digest} size: 1570\n`,
      ),
    ).toBe(digest);
    expect(pushedDigest("denied: requested access to the resource is denied")).toBeUndefined();
  });

  it("pull credentials come from docker login's entry for the registry host, and only that one", () => {
    const dir = tempDir("docker-config-");
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({ auths: { "https://reg.example.com": { auth: "dTpw" }, "other.example.com": { auth: "eDp5" } } }),
    );
    expect(JSON.parse(dockerConfigFor("reg.example.com", { DOCKER_CONFIG: dir })!)).toEqual({
      auths: { "reg.example.com": { auth: "dTpw" } },
    });
    expect(dockerConfigFor("127.0.0.1:5001", { DOCKER_CONFIG: dir })).toBeUndefined();
    expect(dockerConfigFor("reg.example.com", { DOCKER_CONFIG: join(dir, "none") })).toBeUndefined();
  });

  it("pull credentials from a credential helper: the host's (credHelpers), else the default store (credsStore), else auths", () => {
    const dir = tempDir("docker-config-");
    // A real helper program, speaking the docker-credential-helpers protocol: `get`, the server on stdin, JSON out.
    const helper = (name: string, body: string) => {
      writeFileSync(join(dir, `docker-credential-${name}`), `#!/bin/sh\nread server\n${body}\n`, { mode: 0o755 });
    };
    helper(
      "team",
      'case "$server" in reg.example.com) echo \'{"ServerURL":"reg.example.com","Username":"ci","Secret":"s3cret"}\';; *) echo "credentials not found in native keychain" >&2; exit 1;; esac',
    );
    helper("store", 'echo "{\\"ServerURL\\":\\"$server\\",\\"Username\\":\\"<token>\\",\\"Secret\\":\\"refresh\\"}"');
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({ credHelpers: { "reg.example.com": "team" }, credsStore: "store", auths: { "other.example.com": { auth: "eDp5" } } }),
    );
    const env = { DOCKER_CONFIG: dir, PATH: `${dir}:/usr/bin:/bin` };
    expect(JSON.parse(dockerConfigFor("reg.example.com", env)!)).toEqual({
      auths: { "reg.example.com": { auth: Buffer.from("ci:s3cret").toString("base64") } },
    });
    // The store holds an identity token only (no pull with it): the inline login serves.
    expect(JSON.parse(dockerConfigFor("other.example.com", env)!)).toEqual({ auths: { "other.example.com": { auth: "eDp5" } } });
    expect(dockerConfigFor("third.example.com", env)).toBeUndefined();
    // A helper that is not installed is no login.
    expect(dockerConfigFor("reg.example.com", { ...env, PATH: "/usr/bin:/bin" })).toBeUndefined();
  });

  it("pull secrets reach the Deployment's pods and the migration Job's", () => {
    const src = { pullPolicy: "IfNotPresent", pullSecrets: ["registry-credentials-x"] } as const;
    const dep = deploymentSpec(plan, api, appContainer(api, "r/i@sha256:1", "env", src), src);
    expect(dep.template).toMatchObject({ spec: { imagePullSecrets: [{ name: "registry-credentials-x" }] } });
    expect(migrateJobSpec(plan, api, "r/i@sha256:1", "env", src).template).toMatchObject({
      spec: { imagePullSecrets: [{ name: "registry-credentials-x" }] },
    });
    const none = { pullPolicy: "Never" } as const;
    expect(deploymentSpec(plan, api, appContainer(api, "i", "env", none), none).template).not.toHaveProperty("spec.imagePullSecrets");
  });

  it("a cluster that is not the test cluster, without a registry, is refused before anything is created", () => {
    expect(() => checkImageRoute(plan, { kubeconfig: "/home/u/.kube/config" })).toThrow(
      /cannot pull the images built on this machine \(.*api, web.*\).*--registry HOST/,
    );
    expect(() => checkImageRoute(plan, { kubeconfig: "/k", registry: "reg.example.com" })).not.toThrow();
    expect(() => checkImageRoute(plan, { kubeconfig: "/k", testCluster: { volumesDir: "/v" } })).not.toThrow();
  });
});

describe("a pod waits for the Services it depends on", () => {
  const never = { pullPolicy: "Never" } as const;
  it("the API's migration and pods wait, in their own Python, for the database's Service; the database waits for nothing", () => {
    const wait = dependencyWait(plan, api, "img:1", never);
    expect(wait).toHaveLength(1);
    const command = plain(wait[0]!.command);
    expect(command[0]).toBe("python3");
    expect(command[2]).toContain(`[["database.${plan.project}-${plan.env}.svc.cluster.local",5432]]`);
    expect(migrateJobSpec(plan, api, "img:1", "env", never).template).toMatchObject({
      spec: { initContainers: [{ name: "wait-for-dependencies" }] },
    });
    expect(deploymentSpec(plan, api, appContainer(api, "img:1", "env", never), never).template).toMatchObject({
      spec: { initContainers: [{ name: "wait-for-dependencies", image: "img:1" }] },
    });
    expect(dependencyWait(plan, plan.services.find((s) => s.name === "database")!, "pg", never)).toEqual([]);
    expect(plain(dependencyWait(plan, plan.services.find((s) => s.name === "web")!, "w", never)[0]!.command)[0]).toBe("node");
  });
});
